import Testing
import MediaFormats
import MediaJob
@testable import LiveRelay

@Suite struct LiveEngineSupportTests {
    func live(_ input: String, outputs: [OutputDescription]) -> MediaJobOptions {
        var options = MediaJobOptions(inputURL: input, inputName: input)
        options.liveInput = true
        options.outputs = outputs
        return options
    }

    @Test func fileJobsStayOnTheCopyPipeline() {
        var options = MediaJobOptions(inputURL: "file:in.mp4", inputName: "in.mp4")
        options.outputs = [OutputDescription(target: .file(path: "out.flv"), kind: .flv, name: "out.flv")]
        #expect(!RelayEngine.supports(options))
    }

    @Test func liveCopyToRTMPIsTaken() {
        let out = OutputDescription(target: .network(url: "rtmps://a.example/app/k"), kind: .flv, name: "a")
        #expect(RelayEngine.supports(live("rtmp://src.example/live/k", outputs: [out])))
        var listen = live("rtmp://0.0.0.0:1935/ingest/k", outputs: [out])
        listen.inputOptions["listen"] = "1"
        #expect(RelayEngine.supports(listen))
        // rtmps:// listen: the engine terminates TLS with the worker's certificate.
        var secureListen = live("rtmps://0.0.0.0:443/ingest/k", outputs: [out])
        secureListen.inputOptions["listen"] = "1"
        #expect(RelayEngine.supports(secureListen))
        var dropVideo = live("rtmp://src.example/live/k", outputs: [out])
        dropVideo.video = .drop
        #expect(RelayEngine.supports(dropVideo))
        let file = OutputDescription(target: .file(path: "/tmp/x.flv"), kind: .flv, name: "x")
        #expect(RelayEngine.supports(live("rtmp://src.example/live/k", outputs: [out, file])))
        // SRT on either side: a pull or a listen in, MPEG-TS out.
        let srt = OutputDescription(target: .network(url: "srt://b.example:9000?streamid=publish:live/k"), kind: .mpegts, name: "b")
        #expect(RelayEngine.supports(live("srt://src.example:9000", outputs: [out, file])))
        #expect(RelayEngine.supports(live("rtmp://src.example/live/k", outputs: [srt])))
        #expect(RelayEngine.supports(live("srt://src.example:9000?streamid=read:live/k", outputs: [srt, out])))
    }

    @Test("every file format of a live copy is written on the engine: its sink on the file pool")
    func liveCopyToEveryFileFormatIsTaken() throws {
        let out = OutputDescription(target: .network(url: "rtmp://a.example/app/k"), kind: .flv, name: "a")
        let files: [OutputDescription] = [
            OutputDescription(target: .file(path: "/tmp/x.aac"), kind: .adts, name: "x.aac"),
            OutputDescription(target: .file(path: "/tmp/x.ts"), kind: .mpegts, name: "x.ts"),
            OutputDescription(target: .file(path: "/tmp/x.mp4"), kind: .mp4, name: "x.mp4"),
            OutputDescription(target: .file(path: "/tmp/x.h264"), kind: .annexB, name: "x.h264"),
            OutputDescription(target: .file(path: "/tmp/hls/index.m3u8"), kind: .hls, name: "index.m3u8",
                              hls: HLSSettings(segmentSeconds: 2, window: 6, isVOD: false, partSeconds: 0.5)),
            OutputDescription(target: .file(path: "/tmp/rec-%H%M%S.mp4"), kind: .mp4, name: "rec",
                              segments: SegmentSettings(seconds: 10, pattern: try SegmentNamePattern("/tmp/rec-%H%M%S.mp4"))),
        ]
        for file in files {
            #expect(RelayEngine.supports(live("rtmp://src.example/live/k", outputs: [out, file])), "\(file.name)")
            #expect(RelayEngine.supports(live("srt://src.example:9000", outputs: [file])), "\(file.name)")
        }
    }

    @Test func otherLiveJobsAreNotTaken() {
        let out = OutputDescription(target: .network(url: "rtmp://a.example/app/k"), kind: .flv, name: "a")
        #expect(!RelayEngine.supports(live("rtmp://src.example/live/k", outputs: [])))
        // An SRT output carries MPEG-TS made at the edge, never FLV.
        let srtAsFLV = OutputDescription(target: .network(url: "srt://b.example:9000"), kind: .flv, name: "b")
        #expect(!RelayEngine.supports(live("srt://src.example:9000", outputs: [srtAsFLV])))
        // A ladder's multivariant playlist, and an output with a rendition of its own, go through the codec stage.
        var ladder = live("rtmp://src.example/live/k", outputs: [out])
        ladder.multivariant = HLSMultivariantSettings(path: "/tmp/hls/main.m3u8", name: "main.m3u8", variants: [])
        #expect(!RelayEngine.supports(ladder))
        var rendition = OutputDescription(target: .file(path: "/tmp/x.aac"), kind: .adts, name: "x.aac")
        rendition.audio = .encode(AudioEncodeSettings())
        #expect(!RelayEngine.supports(live("rtmp://src.example/live/k", outputs: [out, rendition])))
        var encode = live("rtmp://src.example/live/k", outputs: [out])
        encode.audio = .encode(AudioEncodeSettings())
        #expect(!RelayEngine.supports(encode))
        var notLive = live("rtmp://src.example/live/k", outputs: [out])
        notLive.liveInput = false
        #expect(!RelayEngine.supports(notLive))
    }
}
