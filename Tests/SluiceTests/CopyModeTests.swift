import Foundation
import JobStore
import MediaFormats
import Testing
@testable import Sluice
import JobDocument

/// Copy mode is lossless (docs/ARCHITECTURE.md §9): for every fixture, the decoded video and audio frames of every
/// output equal the input's, with ffmpeg's framemd5 as the referee.
@Suite("Copy mode, lossless", .serialized)
struct CopyModeTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let fixture: @Sendable () throws -> String
        var hasVideo = true
        var hasAudio = true
        var inputFPS: Double?
        /// One fragmented MP4 holds one configuration per track: a stream whose SPS changes goes to the other formats.
        var mp4 = true
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "MP4, High profile, 3 B-frames, AAC 48 kHz stereo", fixture: Fixtures.mp4BFrames),
        Case(name: "MP4, 4 slices per frame", fixture: Fixtures.slices),
        Case(name: "MP4, AAC 44.1 kHz mono", fixture: Fixtures.mono44k),
        Case(name: "Matroska, AAC 5.1", fixture: Fixtures.surround),
        Case(name: "MPEG-TS with AUDs and ADTS audio", fixture: Fixtures.mpegtsAUD),
        Case(name: "FLV input", fixture: Fixtures.flvInput),
        Case(name: "raw Annex B with B-frames, timing from input.fps", fixture: Fixtures.rawH264, hasAudio: false, inputFPS: 25),
        Case(name: "odd size 326x198 (cropping)", fixture: Fixtures.oddSize),
        Case(name: "High 10", fixture: Fixtures.high10, hasAudio: false),
        Case(name: "ADTS .aac input", fixture: Fixtures.adtsInput, hasVideo: false),
        Case(name: "resolution change mid-stream (MPEG-TS)", fixture: Fixtures.resolutionChange, hasAudio: false, mp4: false),
    ]

    @Test("decoded frames of every output equal the input's", arguments: cases)
    func lossless(_ testCase: Case) throws {
        let input = try testCase.fixture()
        let harness = try JobHarness("copy")
        var outputs: [JSONValue] = [.string(harness.path("out.flv")), .string(harness.path("out.ts"))]
        if testCase.mp4 { outputs.append(.string(harness.path("out.mp4"))) }
        if testCase.hasVideo { outputs.append(.string(harness.path("out.h264"))) }
        if testCase.hasAudio { outputs.append(.string(harness.path("out.aac"))) }
        var inputValue: JSONValue = .string(input)
        if let fps = testCase.inputFPS { inputValue = .object(["url": .string(input), "fps": .number(fps)]) }
        let outcome = try harness.run(.object(["id": .string("copy-1"), "input": inputValue, "outputs": .array(outputs)]))
        let result = try #require(outcome.succeeded, "job did not succeed: \(outcome)")

        if testCase.hasVideo {
            let expected = try FrameHashes.of(input, .video, inputOptions: testCase.inputFPS.map { ["-r", String($0)] } ?? [])
            #expect(expected.count > 10)
            #expect(try FrameHashes.of(harness.path("out.flv"), .video) == expected, "FLV video differs")
            #expect(try FrameHashes.of(harness.path("out.h264"), .video) == expected, ".h264 differs")
            #expect(try FrameHashes.of(harness.path("out.ts"), .video) == expected, ".ts video differs")
            if testCase.mp4 { #expect(try FrameHashes.of(harness.path("out.mp4"), .video) == expected, ".mp4 video differs") }
            #expect(result.progress.videoFrames == expected.count)
        }
        if testCase.hasAudio {
            let expected = try FrameHashes.of(input, .audio)
            #expect(expected.count > 10)
            #expect(try FrameHashes.of(harness.path("out.flv"), .audio) == expected, "FLV audio differs")
            #expect(try FrameHashes.of(harness.path("out.aac"), .audio) == expected, ".aac differs")
            #expect(try FrameHashes.of(harness.path("out.ts"), .audio) == expected, ".ts audio differs")
            if testCase.mp4 { #expect(try FrameHashes.of(harness.path("out.mp4"), .audio) == expected, ".mp4 audio differs") }
        }
        try FLVChecks.validate(harness.path("out.flv"))

        let job = try #require(try harness.store.job(id: "copy-1"))
        #expect(job.state == .succeeded)
        #expect(job.attempts == 1)
        #expect(try harness.store.outputs(jobID: "copy-1").allSatisfy { $0.state == .succeeded && $0.bytes > 0 })
        let names = try FileManager.default.contentsOfDirectory(atPath: harness.folder)
        #expect(!names.contains { $0.hasSuffix(".part") })
    }

    @Test("an SPS that changes mid-stream fails an .mp4 output by name, and leaves no file")
    func mp4RefusesNewConfiguration() throws {
        let harness = try JobHarness("copy-mp4-change")
        let outcome = try harness.run(.object(["id": .string("mp4-change"), "input": .string(try Fixtures.resolutionChange()),
                                                "outputs": .array([.string(harness.path("out.mp4"))])]))
        guard case let .failed(failure) = outcome else {
            Issue.record("expected a failure, got \(outcome)")
            return
        }
        #expect(failure.message.contains("configuration changed mid-stream"), "\(failure.message)")
        #expect(failure.message.contains("out.mp4"), "\(failure.message)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: harness.folder).filter { $0.contains("out.mp4") }.isEmpty)
    }

    @Test("SPS/PPS change mid-stream gets a new AVC sequence header in FLV")
    func newSequenceHeader() throws {
        let harness = try JobHarness("reschange")
        let outcome = try harness.run(.object(["id": .string("res"), "input": .string(try Fixtures.resolutionChange()),
                                               "outputs": .array([.string(harness.path("o.flv"))])]))
        #expect(outcome.succeeded != nil)
        let summary = try FLVChecks.validate(harness.path("o.flv"))
        #expect(summary.videoSequenceHeaders == 2)
        let sizes = try Command.run("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "frame=width,height", "-of", "csv=p=0", harness.path("o.flv")])
        let pairs = sizes.text.split(separator: "\n").map { $0.split(separator: ",").prefix(2).joined(separator: "x") }
        #expect(Set(pairs) == ["320x240", "480x270"])
    }
}

/// Structural checks of an FLV file with MediaFormats' reader (docs/ARCHITECTURE.md §9).
enum FLVChecks {
    struct Summary {
        var videoSequenceHeaders = 0
        var audioSequenceHeaders = 0
        var videoTags = 0
        var audioTags = 0
    }

    enum Problem: Error, CustomStringConvertible {
        case check(String)
        var description: String { if case let .check(text) = self { return text }; return "" }
    }

    @discardableResult
    static func validate(_ path: String) throws -> Summary {
        var reader = FLVReader()
        reader.append(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        var summary = Summary()
        var lastDTS: [FLVTagType: Int64] = [:]
        while let tag = try reader.nextTag() {
            let type = tag.header.tagType
            let dts = Int64(tag.header.timestamp)
            switch type {
            case .video:
                if try tag.videoTagHeader().avcPacketType == .sequenceHeader {
                    summary.videoSequenceHeaders += 1
                } else {
                    guard summary.videoSequenceHeaders > 0 else { throw Problem.check("video before its AVC sequence header") }
                    summary.videoTags += 1
                }
            case .audio:
                if try tag.audioTagHeader().aacPacketType == .sequenceHeader {
                    summary.audioSequenceHeaders += 1
                } else {
                    guard summary.audioSequenceHeaders > 0 else { throw Problem.check("audio before its AAC sequence header") }
                    summary.audioTags += 1
                }
            case .scriptData:
                continue
            }
            if let last = lastDTS[type], dts < last { throw Problem.check("\(type) DTS goes back from \(last) to \(dts) ms") }
            lastDTS[type] = dts
        }
        return summary
    }
}
