import Testing
import MediaFormats

/// The multivariant playlist is written once every variant can be played, and again only when a measured peak
/// passes what was listed.
@Suite("HLSMultivariantSchedule: when the multivariant playlist is written, and what it lists")
struct HLSMultivariantScheduleTests {
    static let video720 = HLSMultivariantSchedule.StreamFacts(codecs: ["avc1.64001f", "mp4a.40.2"], width: 1280, height: 720, frameRate: 30)
    static let video360 = HLSMultivariantSchedule.StreamFacts(codecs: ["avc1.64001e", "mp4a.40.2"], width: 640, height: 360, frameRate: 30)

    @Test("nothing until every variant has its init segment and a segment; then the measured attributes, in order")
    func firstWrite() {
        var schedule = HLSMultivariantSchedule(uris: ["720/index.m3u8", "360/index.m3u8"], targetDuration: 2, version: 6)
        let early = [schedule.describe(0, Self.video720), schedule.record(0, segment: .init(bytes: 750_000, duration: 2)),
                     schedule.describe(1, Self.video360)]
        #expect(early == [nil, nil, nil], "the 360p variant has no segment yet")
        let playlist = schedule.record(1, segment: .init(bytes: 200_000, duration: 2))
        #expect(playlist?.render() == """
            #EXTM3U
            #EXT-X-VERSION:6
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-STREAM-INF:BANDWIDTH=3000000,AVERAGE-BANDWIDTH=3000000,RESOLUTION=1280x720,FRAME-RATE=30.000,CODECS="avc1.64001f,mp4a.40.2"
            720/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=800000,AVERAGE-BANDWIDTH=800000,RESOLUTION=640x360,FRAME-RATE=30.000,CODECS="avc1.64001e,mp4a.40.2"
            360/index.m3u8

            """)
        #expect(schedule.listedBandwidths == [3_000_000, 800_000])
    }

    @Test("written again only when a peak rises past the listing; the end's playlist has the latest averages")
    func rewrites() throws {
        var schedule = HLSMultivariantSchedule(uris: ["a.m3u8", "b.m3u8"], targetDuration: 2, version: 6)
        _ = schedule.describe(0, Self.video720)
        _ = schedule.describe(1, Self.video360)
        _ = schedule.record(0, segment: .init(bytes: 750_000, duration: 2))
        let first = schedule.record(1, segment: .init(bytes: 200_000, duration: 2))
        let lower = schedule.record(0, segment: .init(bytes: 700_000, duration: 2))
        let equal = schedule.record(1, segment: .init(bytes: 200_000, duration: 2))
        #expect(first != nil && lower == nil && equal == nil, "written first, then not for a lower or an equal peak")
        let rise = schedule.record(1, segment: .init(bytes: 300_000, duration: 2))
        let risen = try #require(rise)
        #expect(risen.variants.map(\.bandwidth) == [3_000_000, 1_200_000])
        let final = try #require(schedule.playlist)
        #expect(final.variants.map(\.averageBandwidth) == [2_900_000, 933_334])
    }

    @Test("an audio-only variant lists no resolution or frame rate; an unknown index changes nothing")
    func audioOnly() throws {
        var schedule = HLSMultivariantSchedule(uris: ["v.m3u8", "a.m3u8"], targetDuration: 2, version: 6)
        let unknown = [schedule.describe(5, Self.video720), schedule.record(-1, segment: .init(bytes: 1, duration: 1))]
        #expect(unknown == [nil, nil])
        _ = schedule.describe(0, Self.video720)
        _ = schedule.describe(1, .init(codecs: ["mp4a.40.2"]))
        _ = schedule.record(0, segment: .init(bytes: 1_000, duration: 2))
        let written = schedule.record(1, segment: .init(bytes: 32_000, duration: 2))
        let playlist = try #require(written)
        #expect(playlist.variants[1].attributes.description == #"BANDWIDTH=128000,AVERAGE-BANDWIDTH=128000,CODECS="mp4a.40.2""#)
    }
}
