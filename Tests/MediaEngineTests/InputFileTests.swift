import Foundation
import Testing
@testable import MediaEngine
@testable import MediaSinks
import MediaJob

@Suite("InputFile: an input under a root, opened by descriptor without following links")
struct InputFileTests {
    @Test("an input under a root is opened without following links; a link swapped in is refused")
    func inputs() throws {
        let base = NSTemporaryDirectory() + "sluice-inputfile-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: base) }
        let fixture = (root: base + "/root", outside: base + "/outside")
        try FileManager.default.createDirectory(atPath: fixture.root, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: fixture.outside, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: fixture.root + "/in", withIntermediateDirectories: true)
        try "media".write(toFile: fixture.root + "/in/clip.mp4", atomically: false, encoding: .utf8)
        try "secret".write(toFile: fixture.outside + "/secret", atomically: false, encoding: .utf8)
        let input = try InputFile(path: fixture.root + "/in/clip.mp4", root: fixture.root)
        #expect(input.url == "file:/proc/self/fd/\(input.descriptor)")
        #expect(FileManager.default.contents(atPath: String(input.url.dropFirst("file:".count))) == Data("media".utf8))

        try FileManager.default.createSymbolicLink(atPath: fixture.root + "/in/link.mp4", withDestinationPath: fixture.outside + "/secret")
        let file = try #require(throws: FileAccessError.self) { try InputFile(path: fixture.root + "/in/link.mp4", root: fixture.root) }
        #expect(file.reason.contains("symbolic link"), "\(file)")
        try FileManager.default.createSymbolicLink(atPath: fixture.root + "/linkdir", withDestinationPath: fixture.outside)
        let folder = try #require(throws: FileAccessError.self) { try InputFile(path: fixture.root + "/linkdir/secret", root: fixture.root) }
        #expect(folder.reason.contains("symbolic link"), "\(folder)")
        let directory = try #require(throws: FileAccessError.self) { try InputFile(path: fixture.root + "/in", root: fixture.root) }
        #expect(directory.reason == "is not a regular file")
        // A FIFO with no writer would block a plain open forever.
        #expect(mkfifo(fixture.root + "/in/pipe.mp4", 0o644) == 0)
        let fifo = try #require(throws: FileAccessError.self) { try InputFile(path: fixture.root + "/in/pipe.mp4", root: fixture.root) }
        #expect(fifo.reason == "is not a regular file")
    }
}
