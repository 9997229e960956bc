import Testing
@testable import MediaEngine
@testable import MediaSinks
import MediaJob

/// Which encoder feeds which output: equal settings share one rendition, lanes pair them.
@Suite("RenditionPlan")
struct RenditionPlanTests {
    static func settings(height: Int, bitrate: Int) -> VideoEncodeSettings {
        var settings = VideoEncodeSettings()
        settings.height = height
        settings.bitrateKbps = bitrate
        return settings
    }

    static func output(_ name: String, _ kind: OutputKind = .flv, video: StreamHandling<VideoEncodeSettings>? = nil,
                       audio: StreamHandling<AudioEncodeSettings>? = nil) -> OutputDescription {
        OutputDescription(target: .file(path: name), kind: kind, name: name, video: video, audio: audio)
    }

    @Test("a ladder: copy, 720p, 480p and a second 480p output share renditions; interleaving only where an encoder is")
    func ladder() {
        var options = MediaJobOptions(inputURL: "in", inputName: "in")
        options.audio = .encode(AudioEncodeSettings())
        let p720 = Self.settings(height: 720, bitrate: 3000)
        let p480 = Self.settings(height: 480, bitrate: 1200)
        options.outputs = [
            Self.output("copy.flv", video: .copy, audio: .copy),
            Self.output("720.flv", video: .encode(p720)),
            Self.output("480.flv", video: .encode(p480)),
            Self.output("480-again.flv", video: .encode(p480)),
            Self.output("audio.aac", .adts),
            Self.output("source.h264", .annexB),
        ]
        let plan = RenditionPlan(options)
        #expect(plan.video == [.copy, .encode(p720), .encode(p480)])
        #expect(plan.audio == [.copy, .encode(AudioEncodeSettings())])
        #expect(plan.encodedVideo.map(\.rendition) == [1, 2] && plan.copiedVideo == 0)
        #expect(plan.encodedAudio.map(\.rendition) == [1] && plan.copiedAudio == 0)
        // One lane per distinct pair: the two 480p outputs share one; the .aac takes audio only, the .h264 video only.
        #expect(plan.lanes == [.init(video: 0, audio: 0), .init(video: 1, audio: 1), .init(video: 2, audio: 1),
                               .init(video: nil, audio: 1), .init(video: 0, audio: nil)])
        #expect(plan.outputLanes == [0, 1, 2, 2, 3, 4])
        #expect(plan.lanes.map(plan.interleaves) == [false, true, true, false, false])
        #expect(options.encodes && options.hasRenditions && options.usesVideo && options.usesAudio)
    }

    @Test("without renditions of their own every output takes the job's treatment: one lane")
    func single() {
        var options = MediaJobOptions(inputURL: "in", inputName: "in")
        options.video = .drop
        options.outputs = [Self.output("a.flv"), Self.output("b.aac", .adts)]
        let plan = RenditionPlan(options)
        #expect(plan.video.isEmpty && plan.audio == [.copy])
        #expect(plan.lanes == [.init(video: nil, audio: 0)] && plan.outputLanes == [0, 0])
        #expect(!options.encodes && !options.hasRenditions && !options.usesVideo && options.usesAudio)
    }

    @Test("a job that drops video still decodes it when one output encodes it")
    func outputBringsVideoBack() {
        var options = MediaJobOptions(inputURL: "in", inputName: "in")
        options.video = .drop
        let p360 = Self.settings(height: 360, bitrate: 700)
        options.outputs = [Self.output("audio.flv"), Self.output("360.flv", video: .encode(p360))]
        let plan = RenditionPlan(options)
        #expect(plan.video == [.encode(p360)])
        #expect(plan.lanes == [.init(video: nil, audio: 0), .init(video: 0, audio: 0)])
        #expect(options.usesVideo && options.encodes)
    }
}
