import Testing
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

    @Test func otherLiveJobsAreNotTaken() {
        let out = OutputDescription(target: .network(url: "rtmp://a.example/app/k"), kind: .flv, name: "a")
        let adts = OutputDescription(target: .file(path: "/tmp/x.aac"), kind: .adts, name: "x")
        #expect(!RelayEngine.supports(live("rtmp://src.example/live/k", outputs: [out, adts])))
        #expect(!RelayEngine.supports(live("rtmp://src.example/live/k", outputs: [])))
        // An SRT output carries MPEG-TS made at the edge, never FLV; a file other than FLV goes through the codec stage.
        let srtAsFLV = OutputDescription(target: .network(url: "srt://b.example:9000"), kind: .flv, name: "b")
        #expect(!RelayEngine.supports(live("srt://src.example:9000", outputs: [srtAsFLV])))
        let tsFile = OutputDescription(target: .file(path: "/tmp/x.ts"), kind: .mpegts, name: "x")
        #expect(!RelayEngine.supports(live("srt://src.example:9000", outputs: [out, tsFile])))
        var encode = live("rtmp://src.example/live/k", outputs: [out])
        encode.audio = .encode(AudioEncodeSettings())
        #expect(!RelayEngine.supports(encode))
        var notLive = live("rtmp://src.example/live/k", outputs: [out])
        notLive.liveInput = false
        #expect(!RelayEngine.supports(notLive))
    }
}
