import Foundation
import Testing
@testable import MediaEngine
@testable import MediaSinks
@testable import MediaJob

@Suite("FileWriter: a file output's bytes, buffered, whole packets or nothing")
struct FileWriterTests {
    @Test("bytes a file writer holds are patched and written in order; a packet that fails halfway leaves nothing")
    func sinkAppendIsWholeOrNothing() throws {
        let root = NSTemporaryDirectory() + "sluice-filewriter-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let path = root + "/a.bin"
        let file = try FileWriter(path: path, root: root)
        struct Halfway: Error {}
        try file.write(Array("head".utf8))
        #expect(throws: Halfway.self) {
            try file.append { bytes in
                bytes.append(contentsOf: Array("torn".utf8))
                throw Halfway()
            }
        }
        #expect(file.bytesWritten == 4)
        try file.append { $0.append(contentsOf: Array(repeating: UInt8(ascii: "x"), count: FileWriter.bufferSize)) }
        try file.write(Array("tail".utf8))
        try file.patch(at: 0, with: Array("HEAD".utf8))
        #expect(file.bytesWritten == Int64(8 + FileWriter.bufferSize))
        try file.close()
        try file.rename().syncFolder()
        let bytes = try #require(FileManager.default.contents(atPath: path))
        #expect(bytes.count == 8 + FileWriter.bufferSize)
        #expect(String(decoding: bytes.prefix(4), as: UTF8.self) == "HEAD" && String(decoding: bytes.suffix(4), as: UTF8.self) == "tail")
        #expect(!bytes.contains(UInt8(ascii: "o")), "the torn packet reached the file")
    }
}
