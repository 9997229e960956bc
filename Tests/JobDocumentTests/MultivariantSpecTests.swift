import Foundation
import JobDocument
import Testing

/// `hls_multivariant`: one multivariant playlist over the job's HLS outputs, refused by key path when it could not
/// name each of them by a relative URI.
@Suite("Job spec: hls_multivariant")
struct MultivariantSpecTests {
    static func job(_ multivariant: String, outputs: String) -> String {
        #"{"id": "m", "input": "rtmp://127.0.0.1/live/k", "hls_multivariant": \#(multivariant), "outputs": \#(outputs)}"#
    }

    static let ladder = #"""
        [{"url": "out/cam42/src/index.m3u8", "video": {"mode": "copy"}},
         {"url": "out/cam42/720/index.m3u8", "video": {"mode": "encode", "height": 720}},
         {"url": "rtmp://b.example/live/KEY"}]
        """#

    @Test("accepted over two HLS outputs below its folder, and carried into the spec")
    func accepted() throws {
        let spec = try JobSpec.parse(Data(Self.job(#""out/cam42/master.m3u8""#, outputs: Self.ladder).utf8))
        #expect(spec.hlsMultivariant == "out/cam42/master.m3u8")
        #expect(try JobSpec.parse(Data(#"{"id": "m", "input": "a.mp4", "outputs": ["a.m3u8", "b.m3u8"]}"#.utf8)).hlsMultivariant == nil)
        #expect(specProblems(Self.job(#""file:///media/out/m.m3u8""#, outputs: #"["/media/out/a/i.m3u8", "/media/out/b.m3u8"]"#)).isEmpty)
    }

    @Test("refused by key path: not .m3u8, a URL, fewer than two HLS outputs, an output's own path, a playlist outside its folder")
    func refused() {
        #expect(specProblems(Self.job(#""out/cam42/master.txt""#, outputs: Self.ladder))
                == [#"hls_multivariant: must name a .m3u8 file, got "out/cam42/master.txt""#])
        #expect(specProblems(Self.job(#""rtmp://h/live/m.m3u8""#, outputs: Self.ladder))
                == [#"hls_multivariant: must be a file path (a .m3u8 beside or above the HLS outputs), got "rtmp://h/live/***""#])
        #expect(specProblems(Self.job(#""out/m.m3u8""#, outputs: #"["out/a.m3u8", "out/a.flv"]"#))
                == ["hls_multivariant: lists the job's HLS outputs as variants and needs at least 2, got 1"])
        #expect(specProblems(Self.job(#""out/a.m3u8""#, outputs: #"["out/./a.m3u8", "out/b.m3u8"]"#))
                == ["hls_multivariant: is the same file as outputs[0].url"])
        #expect(specProblems(Self.job(#""out/cam42/720/master.m3u8""#, outputs: Self.ladder))
                == [#"outputs[0].url: must be in the folder of hls_multivariant ("out/cam42/720/master.m3u8") or below it, which names each variant by a relative URI"#])
        #expect(specProblems(Self.job(#""/media/m.m3u8""#, outputs: #"["media/a.m3u8", "/media/b.m3u8"]"#)).count == 1)
        #expect(specProblems(Self.job(#"7"#, outputs: Self.ladder)) == ["hls_multivariant: must be a string, got a number"])
    }

    typealias Case = (media: String, multivariant: String, uri: String?)
    static let uris: [Case] = [
        ("out/cam42/720/index.m3u8", "out/cam42/master.m3u8", "720/index.m3u8"),
        ("out/cam42/index.m3u8", "out/cam42/master.m3u8", "index.m3u8"),
        ("/m/a/./b//i.m3u8", "/m/a/x/../master.m3u8", "b/i.m3u8"),
        ("master.m3u8", "master.m3u8", nil),
        ("a.m3u8", "out/master.m3u8", nil),
        ("out/../../a.m3u8", "master.m3u8", nil),
        ("/out/a.m3u8", "out/master.m3u8", nil),
        ("i.m3u8", "m.m3u8", "i.m3u8"),
    ]

    @Test("relative URIs from the multivariant playlist's folder, on the paths' text", arguments: uris)
    func relative(_ c: Case) {
        #expect(MultivariantURI.relative(c.media, from: c.multivariant) == c.uri, "\(c.media) from \(c.multivariant)")
    }
}
