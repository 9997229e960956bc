import Testing
@testable import MediaEngine
@testable import MediaSinks

@Suite("DecodeTimeInference")
struct DecodeTimeInferenceTests {
    static func stream(timeBase: (Int32, Int32), rate: Double?) -> StreamInfo {
        StreamInfo(index: 0, kind: .video, codecName: "h264", extradata: [], timeBaseNumerator: timeBase.0,
                   timeBaseDenominator: timeBase.1, width: 16, height: 16, sampleRate: 0, channels: 0,
                   averageFrameRate: rate, isAttachedPicture: false)
    }

    static func packet(pts: Int64?, dts: Int64?, duration: Int64 = 0) -> DemuxedPacket {
        DemuxedPacket(streamIndex: 0, data: [1], pts: pts, dts: dts, duration: duration, isKeyframe: false)
    }

    @Test("one frame in ticks, for time bases and rates a demuxer may report", arguments: [
        ((Int32(1), Int32(90_000)), Optional(30.0), Int64(3000)),
        ((1, 1), 30, 1),
        ((1, Int32.max), 25, 85_899_346),
        ((1, 1000), nil, 40),
        ((1, Int32.max), 1e-15, Int64.max),
        ((0, 0), 30, 1),
        ((1, 90_000), .nan, 3600),
        ((1, 90_000), .infinity, 3600),
    ] as [((Int32, Int32), Double?, Int64)])
    func frameDuration(_ timeBase: (Int32, Int32), _ rate: Double?, _ expected: Int64) {
        #expect(DecodeTimeInference.frameDuration(0, Self.stream(timeBase: timeBase, rate: rate)) == expected)
    }

    @Test("undated packets before an Int64.min DTS saturate instead of trapping")
    func extremeInference() {
        var inference = DecodeTimeInference()
        let stream = Self.stream(timeBase: (1, Int32.max), rate: 1e-15)
        #expect(inference.push(Self.packet(pts: 5, dts: nil), stream: stream).isEmpty)
        #expect(inference.push(Self.packet(pts: .max, dts: nil), stream: stream).isEmpty)
        let released = inference.push(Self.packet(pts: .min, dts: .min, duration: .max), stream: stream)
        #expect(released.map(\.dts) == [.min, .min, .min])
    }

    @Test("undated packets are placed one frame apart before the next DTS")
    func inference() {
        var inference = DecodeTimeInference()
        let stream = Self.stream(timeBase: (1, 1000), rate: 25)
        _ = inference.push(Self.packet(pts: 80, dts: nil), stream: stream)
        _ = inference.push(Self.packet(pts: 40, dts: nil), stream: stream)
        #expect(inference.push(Self.packet(pts: 120, dts: 100), stream: stream).map(\.dts) == [20, 40, 100])
    }
}
