import Testing
@testable import MediaEngine
@testable import MediaSinks

@Suite("PacketInterleaver")
struct PacketInterleaverTests {
    static func packet(_ kind: MediaPacket.Kind, _ dts: Int64) -> MediaPacket {
        MediaPacket(kind: kind, data: [], pts: dts, dts: dts, isKeyframe: true)
    }

    @Test("audio that runs ahead of a delayed encoder waits for the video")
    func ordersByDTS() {
        var interleaver = PacketInterleaver()
        var out: [MediaPacket] = []
        for dts in stride(from: Int64(0), through: 100_000, by: 20_000) { out += interleaver.push(Self.packet(.audio, dts)) }
        #expect(out.isEmpty)
        out += interleaver.push(Self.packet(.video, 30_000))
        out += interleaver.push(Self.packet(.video, 63_000))
        out += interleaver.flush()
        #expect(out.map(\.dts) == [0, 20_000, 30_000, 40_000, 60_000, 63_000, 80_000, 100_000])
        #expect(out.count == 8)
    }

    @Test("a stream running more than maxSpread ahead of a silent one is released")
    func silentStream() {
        var interleaver = PacketInterleaver()
        var out: [MediaPacket] = []
        for second in Int64(0)...5 { out += interleaver.push(Self.packet(.video, second * 1_000_000)) }
        #expect(out.map(\.dts) == [0, 1_000_000])
        #expect(interleaver.flush().map(\.dts) == [2_000_000, 3_000_000, 4_000_000, 5_000_000])
    }

    @Test("each stream keeps its own order when DTS ties")
    func ties() {
        var interleaver = PacketInterleaver()
        var out = interleaver.push(Self.packet(.video, 10))
        out += interleaver.push(Self.packet(.video, 10))
        out += interleaver.push(Self.packet(.audio, 10))
        out += interleaver.flush()
        #expect(out.map(\.kind) == [.video, .video, .audio])
    }

    @Test("DTS at both ends of Int64 keep their order and never overflow the spread")
    func extremeDTS() {
        var interleaver = PacketInterleaver()
        var out = interleaver.push(Self.packet(.video, .min))
        out += interleaver.push(Self.packet(.video, .max))
        // The spread saturates at Int64.max, past maxSpread: the older packet leaves.
        #expect(out.map(\.dts) == [.min])
        out += interleaver.push(Self.packet(.audio, .min))
        out += interleaver.flush()
        #expect(out.map(\.dts) == [.min, .min, .max])
    }
}
