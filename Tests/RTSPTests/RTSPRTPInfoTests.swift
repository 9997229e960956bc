import Testing
import MediaFormats
import RTSP

@Suite("RTP-Info header")
struct RTSPRTPInfoTests {
    @Test func readsEveryEntryWithCommasInsideURLs() throws {
        let entries = try RTSPRTPInfo.parse("url=rtsp://cam/a,b/track1;seq=4512;rtptime=3450012, url=track2;seq=7;rtptime=4294967295")
        #expect(entries == [RTSPRTPInfo(url: "rtsp://cam/a,b/track1", sequenceNumber: 4512, rtpTime: 3_450_012),
                            RTSPRTPInfo(url: "track2", sequenceNumber: 7, rtpTime: 4_294_967_295)])
    }

    @Test(arguments: ["seq=1;rtptime=2", "url=a;rtptime=4294967296", "url=a;seq=65536", "url=a;seq=-1"])
    func refusesWhatWouldMisplaceAStream(value: String) {
        #expect(throws: RTSPError.self) { try RTSPRTPInfo.parse(value) }
    }

    static func tracks(_ urls: [String]) throws -> [RTSPClientConnection.Track] {
        let media = try SessionDescription(parsing: RTSPClientConnectionTests.sdp).media[0]
        return urls.map { RTSPClientConnection.Track(media: media, url: $0, transport: nil) }
    }

    @Test func matchesEntriesToTracksByURLThenByPosition() throws {
        let tracks = try Self.tracks(["rtsp://cam/s/stream=0", "rtsp://cam/s/stream=1"])
        let named = try RTSPRTPInfo.parse("url=stream=1;rtptime=10,url=rtsp://cam/s/stream=0;rtptime=20")
        #expect(RTSPClientConnection.entry(for: 0, of: tracks, in: named)?.rtpTime == 20)
        #expect(RTSPClientConnection.entry(for: 1, of: tracks, in: named)?.rtpTime == 10)
        // URLs that name no track: by position, only when there is one entry per track.
        let unnamed = try RTSPRTPInfo.parse("url=x;rtptime=1,url=y;rtptime=2")
        #expect(RTSPClientConnection.entry(for: 1, of: tracks, in: unnamed)?.rtpTime == 2)
        #expect(RTSPClientConnection.entry(for: 1, of: tracks, in: Array(unnamed.prefix(1))) == nil)
        // An entry naming one track does not lend its position to the other.
        let one = try RTSPRTPInfo.parse("url=stream=0;rtptime=5,url=other;rtptime=6")
        #expect(RTSPClientConnection.entry(for: 1, of: tracks, in: one) == nil)
    }
}
