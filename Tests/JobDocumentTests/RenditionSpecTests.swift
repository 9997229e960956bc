import Foundation
import Testing
@testable import JobDocument

/// Per-output renditions: an output's own `video` / `audio` object replaces the job's for it.
@Suite("Job spec: per-output renditions")
struct RenditionSpecTests {
    static func parse(_ text: String) throws -> JobSpec { try JobSpec.parse(Data(text.utf8)) }

    static func problems(_ text: String) -> [String] { specProblems(text) }

    @Test("the ladder example: copy, three sizes, a file sharing the 360p rendition, its own audio for the .aac")
    func ladderExample() throws {
        let data = try Data(contentsOf: Scratch.repository.appendingPathComponent("jobs/examples/ladder.json"))
        let spec = try JobSpec.parse(data)
        #expect(spec.outputs.count == 6)
        #expect(spec.video(of: spec.outputs[0]).mode == .copy && spec.audio(of: spec.outputs[0]).mode == .copy)
        #expect(spec.video(of: spec.outputs[1]).height == 720 && spec.audio(of: spec.outputs[1]) == spec.audio)
        // Copy, 720p, 480p and 360p: the file output's 360p equals the RTMP one, so it is no new rendition; the
        // .aac carries no video and adds none.
        let renditions = spec.videoRenditions
        #expect(renditions.map(\.mode) == [.copy, .encode, .encode, .encode])
        #expect(renditions.compactMap(\.height) == [720, 480, 360])
        #expect(spec.audio(of: spec.outputs[5]).bitrateKbps == 64)
        #expect(spec.encodesVideo && spec.encodesAudio)
    }

    @Test("an output's object replaces the job's whole: settings it leaves out are not inherited")
    func replacesWhole() throws {
        let spec = try Self.parse(#"""
        {"id":"r","input":"in.mp4","video":{"mode":"encode","bitrate_kbps":900,"width":640},
         "outputs":["a.flv",{"url":"b.flv","video":{"mode":"encode","height":360}}]}
        """#)
        #expect(spec.video(of: spec.outputs[0]).bitrateKbps == 900)
        let own = spec.video(of: spec.outputs[1])
        #expect(own.height == 360 && own.width == nil && own.bitrateKbps == nil)
        #expect(spec.outputs[0].video == nil && spec.audio(of: spec.outputs[1]) == spec.audio)
    }

    @Test("problems inside an output's object are named by their full path")
    func pathsInMessages() {
        let found = Self.problems(#"""
        {"id":"r","input":"in.mp4","outputs":[
          {"url":"a.flv","video":{"mode":"copy","width":640}},
          {"url":"b.flv","video":{"mode":"encode","width":641,"colour":"red"}},
          {"url":"c.flv","audio":{"mode":"encode","channels":9}},
          {"url":"d.flv","video":"720p"}]}
        """#)
        #expect(found.contains("outputs[0].video.width: only applies when outputs[0].video.mode is encode"), "\(found)")
        #expect(found.contains("outputs[1].video.width: must be even, got 641"), "\(found)")
        #expect(found.contains("outputs[1].video.colour: unknown key"), "\(found)")
        #expect(found.contains("outputs[2].audio.channels: must be a whole number from 1 to 8, got 9"), "\(found)")
        #expect(found.contains("outputs[3].video: must be an object, got a string"), "\(found)")
    }

    @Test("an output must keep something to carry, and a one-kind file refuses the other kind's settings")
    func formatsAndDrops() {
        let dropBoth = Self.problems(#"{"id":"r","input":"in.mp4","outputs":[{"url":"a.flv","video":{"mode":"drop"},"audio":{"mode":"drop"}}]}"#)
        #expect(dropBoth == ["outputs[0]: an FLV output needs audio or video, but both are dropped"])
        let annexB = Self.problems(#"{"id":"r","input":"in.mp4","outputs":[{"url":"a.h264","video":{"mode":"drop"}}]}"#)
        #expect(annexB == ["outputs[0]: an Annex B output needs video, but outputs[0].video.mode is drop"])
        let adtsVideo = Self.problems(#"{"id":"r","input":"in.mp4","outputs":[{"url":"a.aac","video":{"mode":"encode"}}]}"#)
        #expect(adtsVideo == ["outputs[0].video: an ADTS output carries no video; leave video out of it"])
        let annexBAudio = Self.problems(#"{"id":"r","input":"in.mp4","outputs":[{"url":"a.h264","audio":{"mode":"copy"}}]}"#)
        #expect(annexBAudio == ["outputs[0].audio: an Annex B output carries no audio; leave audio out of it"])
    }

    @Test("a job that drops both kinds is valid when an output brings one back")
    func outputBringsBack() throws {
        let spec = try Self.parse(#"""
        {"id":"r","input":"in.mp4","video":{"mode":"drop"},"audio":{"mode":"drop"},
         "outputs":[{"url":"a.aac","audio":{"mode":"copy"}}]}
        """#)
        #expect(spec.audio(of: spec.outputs[0]).mode == .copy && spec.videoRenditions.isEmpty)
        let nothing = Self.problems(#"{"id":"r","input":"in.mp4","video":{"mode":"drop"},"audio":{"mode":"drop"},"outputs":["a.flv"]}"#)
        #expect(nothing.contains(": video and audio are both dropped: nothing to do"), "\(nothing)")
    }

    @Test("the schema takes what the parser takes for outputs' own objects, and refuses what it refuses")
    func schemaAgrees() throws {
        let valid = [
            #"{"id":"r","input":"in.mp4","outputs":[{"url":"a.flv","video":{"mode":"encode","height":360}}]}"#,
            #"{"id":"r","input":"in.mp4","outputs":[{"url":"a.flv","audio":{"mode":"encode","bitrate_kbps":64}}]}"#,
        ]
        let invalid = [
            #"{"id":"r","input":"in.mp4","outputs":[{"url":"a.flv","video":{"mode":"encode","height":361}}]}"#,
            #"{"id":"r","input":"in.mp4","outputs":[{"url":"a.flv","video":{"mode":"encode","size":"big"}}]}"#,
            #"{"id":"r","input":"in.mp4","outputs":[{"url":"a.flv","audio":{"mode":"encode","channels":0}}]}"#,
        ]
        for document in valid { #expect(throws: Never.self, "\(document)") { _ = try Self.parse(document) } }
        for document in invalid { #expect(throws: JobSpecError.self, "\(document)") { _ = try Self.parse(document) } }
        #expect(try JobSchemaTests.schemaVerdicts(valid) == Array(repeating: "ok", count: valid.count))
        #expect(try JobSchemaTests.schemaVerdicts(invalid) == Array(repeating: "invalid", count: invalid.count))
    }
}
