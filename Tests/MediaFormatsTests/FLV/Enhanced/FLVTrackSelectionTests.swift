import Testing
import MediaFormats

@Suite("FLVTrackSelection (one track of a multitrack stream as a single-track one)")
struct FLVTrackSelectionTests {
    static func hex(_ text: String) -> [UInt8] { AACFixtures.bytes(text) }

    /// ModEx (999 999 ns) + Multitrack ManyTracks hvc1 CodedFrames: track 0 (composition time 0, AA BB) and track 3
    /// (composition time 10, CC).
    static let manyTracks = hex("a7 02 0f423f 06 11 68766331 00 000005 000000 aabb 03 000004 00000a cc")

    @Test("track 3 of a ManyTracks message: a single-track ex-header, its ModEx offset and composition time kept")
    func videoTrackOfMany() throws {
        let selection = try FLVTrackSelection.video(Self.manyTracks[...], track: 3)
        // Inter frame + ModEx (7), 2 bytes of offset data minus one, the offset, then ModEx type 0 + CodedFrames (1),
        // the FourCC, SI24 composition time 10, the payload.
        #expect(selection == .rewritten(Self.hex("a7 02 0f423f 01 68766331 00000a cc")))
        guard case let .rewritten(bytes) = selection else { return }
        let data = try FLVVideoData(parsing: bytes)
        #expect(data.multitrackType == nil && data.tracks.count == 1 && data.tracks[0].id == 0)
        #expect(data.timestampOffsetNanoseconds == 999_999 && data.tracks[0].compositionTime == 10)
        #expect(try FLVVideoTagPrefix(parsing: bytes).trackID == 0)
    }

    @Test("track 0 of the same message; a track it does not carry is dropped")
    func videoDefaultTrackAndAbsentTrack() throws {
        #expect(try FLVTrackSelection.video(Self.manyTracks[...], track: 0)
                == .rewritten(Self.hex("a7 02 0f423f 01 68766331 000000 aabb")))
        #expect(try FLVTrackSelection.video(Self.manyTracks[...], track: 1) == .dropped)
    }

    @Test("a OneTrack av01 sequence start on track 1 becomes a plain av01 sequence start")
    func oneTrack() throws {
        let body = Self.hex("96 00 61763031 01 81000c00")  // key frame + Multitrack; OneTrack + SequenceStart; av01; track 1
        #expect(try FLVTrackSelection.video(body[...], track: 1) == .rewritten(Self.hex("90 61763031 81000c00")))
        #expect(try FLVTrackSelection.video(body[...], track: 0) == .dropped)
    }

    @Test("ManyTracksManyCodecs: the picked track keeps its own FourCC")
    func manyCodecs() throws {
        let body = Self.hex("96 23 61763031 00 000002 1200 76703039 02 000001 83")
        #expect(try FLVTrackSelection.video(body[...], track: 2) == .rewritten(Self.hex("93 76703039 83")))
        #expect(try FLVTrackSelection.video(body[...], track: 0) == .rewritten(Self.hex("93 61763031 1200")))
    }

    @Test("a message outside multitrack is the default track: unchanged for 0, dropped for another; commands go to every track")
    func notMultitrack() throws {
        let legacy = Self.hex("17 01 000078 00000002 6588")
        let enhanced = Self.hex("91 68766331 ffffd8 00000002 2601")
        for body in [legacy, enhanced] {
            #expect(try FLVTrackSelection.video(body[...], track: 0) == .unchanged)
            #expect(try FLVTrackSelection.video(body[...], track: 2) == .dropped)
        }
        #expect(try FLVTrackSelection.video(Self.hex("d0 01")[...], track: 2) == .unchanged)
    }

    @Test("FFmpeg 8 writes each track's Metadata without multitrack: it goes with the track whose codec it names")
    func metadataByCodec() throws {
        let av1Metadata = Self.hex("84 61763031 0200")  // Metadata (frame type ignored), av01, AMF
        #expect(try FLVTrackSelection.video(av1Metadata[...], track: 0, codec: .hvc1) == .dropped)
        #expect(try FLVTrackSelection.video(av1Metadata[...], track: 1, codec: .av01) == .unchanged)
        // Codecs unknown (or shared with track 0): the specification's rule, track 0's.
        #expect(try FLVTrackSelection.video(av1Metadata[...], track: 0) == .unchanged)
        #expect(try FLVTrackSelection.video(av1Metadata[...], track: 1) == .dropped)
    }

    @Test("audio: a OneTrack Opus frame on track 1, a legacy AAC frame, a ManyTracks mp4a message")
    func audio() throws {
        let opus = Self.hex("95 01 4f707573 01 fc ff fe")  // SoundFormat 9 + Multitrack; OneTrack + CodedFrames; Opus; track 1
        #expect(try FLVTrackSelection.audio(opus[...], track: 1) == .rewritten(Self.hex("91 4f707573 fc fffe")))
        #expect(try FLVTrackSelection.audio(opus[...], track: 0) == .dropped)
        let aac = Self.hex("af 01 2110 0400")
        #expect(try FLVTrackSelection.audio(aac[...], track: 0) == .unchanged)
        #expect(try FLVTrackSelection.audio(aac[...], track: 1) == .dropped)
        let many = Self.hex("95 11 6d703461 00 000002 aabb 05 000001 cc")  // ManyTracks + CodedFrames, mp4a, tracks 0 and 5
        #expect(try FLVTrackSelection.audio(many[...], track: 5) == .rewritten(Self.hex("91 6d703461 cc")))
        #expect(try FLVTrackSelection.audio(many[...], track: 0) == .rewritten(Self.hex("91 6d703461 aabb")))
    }

    @Test("data that does not parse throws, naming the structure")
    func malformed() {
        #expect(throws: MediaFormatError.self) { try FLVTrackSelection.video(Self.hex("96 23 61763031 00 0000ff 12")[...], track: 0) }
        #expect(throws: MediaFormatError.self) { try FLVTrackSelection.audio([][...], track: 0) }
    }
}
