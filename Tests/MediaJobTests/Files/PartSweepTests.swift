import Foundation
import Testing
@testable import MediaJob

/// A job's leftover `.part` files are found by their owner tag and removed; nothing else is.
@Suite("PartSweep: a job's own leftovers, and nothing else")
struct PartSweepTests {
    let mine = PartOwner(tag: "0123456789abcdef")!
    let theirs = PartOwner(tag: "fedcba9876543210")!

    @Test("owner tags are exactly 16 lowercase hex digits")
    func ownerTags() {
        #expect(PartOwner(tag: "0123456789abcdef") != nil)
        for bad in ["", "0123456789abcde", "0123456789abcdef0", "0123456789ABCDEF", "0123456789abcdeg", "../../../../etc/x"] {
            #expect(PartOwner(tag: bad) == nil, "\(bad)")
        }
    }

    @Test("64 bits make a 16-digit tag, zeros kept")
    func bitsTag() {
        #expect(PartOwner(bits: 0xab).tag == "00000000000000ab")
        #expect(PartOwner(bits: .max).tag == "ffffffffffffffff")
    }

    @Test("a part made with an owner carries its tag: .NAME.<owner>.<16 hex>.part")
    func ownedName() throws {
        let fixture = try RootFixture("owned")
        let file = try OutputFile.create(path: fixture.root + "/a.flv", root: fixture.root, owner: mine)
        try file.closeForWriting()
        #expect(PartSweep.isPart(file.temporaryName, of: "a.flv", owner: mine))
        #expect(!PartSweep.isPart(file.temporaryName, of: "a.flv", owner: theirs))
        file.discard()
    }

    /// A worker killed mid-job leaves its parts: created, never published nor discarded.
    @Test("the sweep removes the owner's parts of these outputs and leaves every other file")
    func sweep() throws {
        let fixture = try RootFixture("sweep")
        let out = fixture.root + "/out"
        var leftovers: [OutputFile] = []
        for (path, owner) in [(out + "/a.flv", mine), (out + "/a.flv", mine), (out + "/b.aac", mine),
                              (out + "/a.flv", theirs), (out + "/c.flv", mine)] {
            let file = try OutputFile.create(path: path, root: fixture.root, owner: owner)
            try file.closeForWriting()
            leftovers.append(file)
        }
        let unowned = try OutputFile.create(path: out + "/a.flv", root: fixture.root)
        try unowned.closeForWriting()
        FileManager.default.createFile(atPath: out + "/a.flv", contents: Data("finished".utf8))
        FileManager.default.createFile(atPath: out + "/.a.flv.\(mine.tag).notes.part", contents: Data())

        let removed = PartSweep.removeParts(of: [out + "/a.flv", out + "/b.aac", out + "/missing/d.flv"], root: fixture.root, owner: mine)
        #expect(removed.count == 3)
        #expect(Set(removed) == Set([leftovers[0], leftovers[1], leftovers[2]].map { out + "/" + $0.temporaryName }))
        let left = Set(fixture.names(in: out))
        #expect(left == Set(["a.flv", ".a.flv.\(mine.tag).notes.part", leftovers[3].temporaryName, leftovers[4].temporaryName,
                             unowned.temporaryName]))
        #expect(fixture.contents(out + "/a.flv") == "finished")
    }

    @Test("without a root the paths are used as given; a missing folder is no error")
    func trusted() throws {
        let fixture = try RootFixture("trusted")
        let file = try OutputFile.create(path: fixture.outside + "/x.h264", root: nil, owner: mine)
        try file.closeForWriting()
        #expect(PartSweep.removeParts(of: [fixture.outside + "/x.h264"], root: nil, owner: mine) == [fixture.outside + "/" + file.temporaryName])
        #expect(fixture.names(in: fixture.outside).isEmpty)
        #expect(PartSweep.removeParts(of: [fixture.base + "/nowhere/x.h264"], root: nil, owner: mine).isEmpty)
    }
}
