import Foundation
import Testing
@testable import MediaJob

/// Parts nobody writes any more are found by their age and the writer's lock, under a root walked
/// without following links; a writer's own part is never one of them.
@Suite("PartSweep: stale parts under an output root")
struct StalePartTests {
    let root: String
    let owner = PartOwner(tag: "0123456789abcdef")!

    init() throws {
        root = NSTemporaryDirectory() + "sluice-staleparts-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: root + "/cam/day1", withIntermediateDirectories: true)
    }

    /// A file at `path` under the root, last written `hoursAgo` hours ago.
    func file(_ path: String, hoursAgo: Double) throws {
        let full = root + "/" + path
        #expect(FileManager.default.createFile(atPath: full, contents: Data("bytes".utf8)))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -hoursAgo * 3600)], ofItemAtPath: full)
    }

    @Test("part names: with an owner tag, without one, and names that are no part")
    func names() {
        #expect(PartSweep.partOwner(ofName: ".a.flv.0123456789abcdef.00000000000000ab.part") == .some(owner))
        #expect(PartSweep.partOwner(ofName: ".my.clip.flv.00000000000000ab.part") == .some(nil))
        for name in ["a.flv", ".a.flv.part", ".a.flv.00000000000000AB.part", "a.flv.00000000000000ab.part",
                     ".00000000000000ab.part", ".a.flv.00000000000000ab.part.tmp"] {
            #expect(PartSweep.partOwner(ofName: name) == nil, "\(name)")
        }
    }

    @Test("old parts in every folder are found; fresh parts, finished files and other files are not")
    func found() throws {
        try file(".a.flv.\(owner.tag).00000000000000ab.part", hoursAgo: 30)
        try file("cam/day1/.b.aac.00000000000000cd.part", hoursAgo: 48)
        try file("cam/.c.flv.\(owner.tag).00000000000000ef.part", hoursAgo: 1)
        try file("cam/day1/b.aac", hoursAgo: 48)
        try file("cam/notes.part", hoursAgo: 48)
        let parts = PartSweep.staleParts(under: root, olderThan: 24 * 3600).sorted { $0.components.count < $1.components.count }
        #expect(parts.map(\.components) == [[".a.flv.\(owner.tag).00000000000000ab.part"],
                                            ["cam", "day1", ".b.aac.00000000000000cd.part"]])
        #expect(parts.map(\.owner) == [owner, nil])
        #expect(parts.allSatisfy { $0.age > 24 * 3600 })
        #expect(parts[1].path(under: root) == root + "/cam/day1/.b.aac.00000000000000cd.part")
    }

    @Test("a part its writer still holds open is not stale, however old its time; once closed it is")
    func writerLock() throws {
        let file = try OutputFile.create(path: root + "/cam/live.flv", root: root, owner: owner)
        let name = file.temporaryName
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -72 * 3600)],
                                              ofItemAtPath: root + "/cam/" + name)
        #expect(PartSweep.staleParts(under: root, olderThan: 24 * 3600).isEmpty)
        try file.closeForWriting()
        let parts = PartSweep.staleParts(under: root, olderThan: 24 * 3600)
        #expect(parts.map(\.components) == [["cam", name]])
        #expect(parts.first.map { PartSweep.remove($0, under: root, olderThan: 24 * 3600) } == true)
        #expect(!FileManager.default.fileExists(atPath: root + "/cam/" + name))
    }

    @Test("a linked folder is not followed, and a part written again since it was found is not removed")
    func links() throws {
        let outside = root + "-outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: root + "/elsewhere", withDestinationPath: outside)
        #expect(FileManager.default.createFile(atPath: outside + "/.x.flv.00000000000000ab.part", contents: Data()))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -48 * 3600)],
                                              ofItemAtPath: outside + "/.x.flv.00000000000000ab.part")
        #expect(PartSweep.staleParts(under: root, olderThan: 24 * 3600).isEmpty)

        try file(".a.flv.00000000000000ab.part", hoursAgo: 48)
        let parts = PartSweep.staleParts(under: root, olderThan: 24 * 3600)
        #expect(parts.count == 1)
        try FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: root + "/.a.flv.00000000000000ab.part")
        #expect(parts.first.map { PartSweep.remove($0, under: root, olderThan: 24 * 3600) } == false)
        #expect(FileManager.default.fileExists(atPath: root + "/.a.flv.00000000000000ab.part"))
    }
}
