import Testing
import MediaFormats

/// The one answer to "what is this tag" that the relay's keyframe gate, its outputs and the codec engine's input
/// queue share: the role, the key frame of the default track, the configuration key.
@Suite("FLVTagHead (what a tag is to a relay)")
struct FLVTagHeadTests {
    static func head(_ type: FLVTagType, _ data: [UInt8]) -> FLVTagHead {
        FLVStreamTag(type: type, timestamp: 0, data: data).head
    }

    @Test func videoRoles() {
        // Legacy AVC: sequence header (0x17 0x00), key frame (0x17 0x01), inter frame (0x27 0x01), end of sequence.
        let header = Self.head(.video, [0x17, 0x00, 0, 0, 0, 1, 0x64])
        #expect(header.role == .videoHeader && !header.isKeyframe && !header.isFrame)
        let key = Self.head(.video, [0x17, 0x01, 0, 0, 0, 0, 0, 0, 1, 0x65])
        #expect(key.role == .videoFrame && key.isKeyframe && key.isFrame && key.trackID == 0)
        let inter = Self.head(.video, [0x27, 0x01, 0, 0, 0, 0, 0, 0, 1, 0x41])
        #expect(inter.role == .videoFrame && !inter.isKeyframe)
        #expect(Self.head(.video, [0x17, 0x02, 0, 0, 0]).role == .otherVideo)
        // A legacy command frame (frame type 5) is no frame.
        #expect(Self.head(.video, [0x57, 0x00]).role == .otherVideo)
        // hvc1 CodedFramesX key frame (ex-header): a frame and a key frame.
        let hevc = Self.head(.video, [0x93, 0x68, 0x76, 0x63, 0x31, 0, 0, 0, 1, 0x26])
        #expect(hevc.role == .videoFrame && hevc.isKeyframe)
        // hvc1 SequenceStart: a configuration, keyed by its packet type (0) on track 0.
        let hevcStart = Self.head(.video, [0x90, 0x68, 0x76, 0x63, 0x31, 1])
        #expect(hevcStart.role == .videoHeader && hevcStart.configurationKey == 0)
    }

    @Test("a key frame of another track than the default (0) is a frame, not where an output starts")
    func keyframeOfTrackOne() {
        // av01 key frame on track 1 (Multitrack OneTrack): 1 001 0110 (0x96), 0000 0001 (OneTrack, CodedFrames), "av01", id 1.
        let other = Self.head(.video, [0x96, 0x01, 0x61, 0x76, 0x30, 0x31, 1, 0x12, 0])
        #expect(other.role == .videoFrame && !other.isKeyframe && other.trackID == 1)
        #expect(other.configurationKey == 1 << 8 | UInt16(FLVVideoPacketType.codedFrames.rawValue))
        // The same on track 0 is.
        let zero = Self.head(.video, [0x96, 0x01, 0x61, 0x76, 0x30, 0x31, 0, 0x12, 0])
        #expect(zero.isKeyframe && zero.trackID == 0)
    }

    @Test func audioRoles() {
        // AAC: AudioSpecificConfig (0xAF 0x00), a raw frame (0xAF 0x01); MP3 (sound format 2): a frame.
        #expect(Self.head(.audio, [0xAF, 0x00, 0x12, 0x10]).role == .audioHeader)
        let aac = Self.head(.audio, [0xAF, 0x01, 0x21, 0x10])
        #expect(aac.role == .audioFrame && aac.isFrame && !aac.isKeyframe)
        #expect(Self.head(.audio, [0x2F, 0xFF, 0xFB]).role == .audioFrame)
    }

    @Test("script data is data; a tag that does not read is passed along, never a frame")
    func otherTags() {
        #expect(Self.head(.scriptData, [0x02, 0x00, 0x0A]).role == .data)
        #expect(FLVTagHead(typeID: 20, data: [0x02][...]).role == .ignored)
        let empty = Self.head(.video, [])
        #expect(empty.role == .otherVideo && !empty.isFrame && empty.configurationKey == 0)
        #expect(Self.head(.audio, []).role == .otherAudio)
        // A legacy AVC frame cut inside its composition time.
        #expect(Self.head(.video, [0x17, 0x01, 0, 0]).role == .otherVideo)
    }
}
