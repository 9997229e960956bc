import Testing
import MediaFormats
import RTMP
@testable import LiveRelay

/// What the relay reads from the first bytes of an audio or video message, and which ones it never forwards.
@Suite struct MediaMessageTests {
    private func video(_ bytes: [UInt8]) -> Message { Message(type: .video, timestamp: 0, streamID: 1, payload: bytes) }
    private func audio(_ bytes: [UInt8]) -> Message { Message(type: .audio, timestamp: 0, streamID: 1, payload: bytes) }

    @Test("an AVC video message needs its 5-byte tag header; other codecs 1 byte; empty never passes")
    func videoTagHeaderLength() {
        #expect(!video([]).hasVideoTagHeader)
        #expect(!video([0x17]).hasVideoTagHeader)
        #expect(!video([0x27, 0x01, 0, 0]).hasVideoTagHeader)
        #expect(video([0x27, 0x01, 0, 0, 0]).hasVideoTagHeader)
        #expect(video([0x12]).hasVideoTagHeader)  // Sorenson H.263 keyframe: its header is the one byte
    }

    @Test("an AAC audio message needs 2 bytes; other formats 1 byte; empty never passes")
    func audioTagHeaderLength() {
        #expect(!audio([]).hasAudioTagHeader)
        #expect(!audio([0xAF]).hasAudioTagHeader)
        #expect(audio([0xAF, 0x01]).hasAudioTagHeader)
        #expect(audio([0x2F]).hasAudioTagHeader)  // MP3
    }

    @Test("keyframes, frames and sequence headers are told apart by the tag header")
    func classification() {
        #expect(video([0x17, 0x00, 0, 0, 0, 1]).isVideoSequenceHeader)
        #expect(!video([0x17, 0x00, 0, 0, 0, 1]).isVideoFrame)
        #expect(video([0x17, 0x01, 0, 0, 0, 9]).isVideoKeyframe)
        #expect(video([0x27, 0x01, 0, 0, 0, 9]).isVideoFrame && !video([0x27, 0x01, 0, 0, 0, 9]).isVideoKeyframe)
        #expect(audio([0xAF, 0x00, 0x12, 0x10]).isAudioSequenceHeader)
        #expect(audio([0xAF, 0x01, 0x21]).isAudioFrame)
    }

    private static let hvc1: [UInt8] = Array("hvc1".utf8)
    private static let av01: [UInt8] = Array("av01".utf8)
    private static let opus: [UInt8] = Array("Opus".utf8)

    @Test("Enhanced RTMP: ex-header sequence starts, key frames (CodedFrames and CodedFramesX) and inter frames")
    func enhancedVideo() {
        // 1 bit IsExHeader + 3 bits FrameType + 4 bits PacketType, then the FourCC.
        let start = video([0x90] + Self.hvc1 + [1, 2, 3])
        #expect(start.isVideoSequenceHeader && !start.isVideoFrame && !start.isVideoKeyframe)
        let key = video([0x91] + Self.hvc1 + [0, 0, 0, 0, 0, 0, 1, 0x26])
        #expect(key.isVideoFrame && key.isVideoKeyframe && !key.isVideoSequenceHeader)
        #expect(video([0x93] + Self.av01 + [0x12, 0]).isVideoKeyframe)
        let inter = video([0xA1] + Self.hvc1 + [0, 0, 0, 0, 0, 0, 1, 0x02])
        #expect(inter.isVideoFrame && !inter.isVideoKeyframe)
        // End of sequence and metadata (colorInfo) are relayed but are no frames; metadata is replayed like a configuration.
        #expect(!video([0x92] + Self.hvc1).isVideoFrame && !video([0x92] + Self.hvc1).isVideoSequenceHeader)
        let colorInfo = video([0xD4] + Self.hvc1 + [0x02])
        #expect(!colorInfo.isVideoFrame && colorInfo.isVideoSequenceHeader && colorInfo.configurationKey == 4)
        // ModEx (a nanosecond offset) before a key frame: 0x97, size−1 = 2, UI24, then 0000 0011 (CodedFramesX).
        #expect(video([0x97, 0x02, 0x00, 0x01, 0x00, 0x03] + Self.av01 + [0x12, 0]).isVideoKeyframe)
        // An unknown FourCC has no readable head.
        #expect(!video([0x91] + Array("xyz1".utf8) + [0, 0, 0]).hasVideoTagHeader)
    }

    @Test("multitrack: every track is a frame, but only the default track (0) starts a group of pictures")
    func multitrackGate() {
        // 1 001 0110 (Multitrack), then 0000 0011 (OneTrack, CodedFramesX), the FourCC, the track id.
        let track0 = video([0x96, 0x03] + Self.av01 + [0, 0x12, 0])
        let track1 = video([0x96, 0x03] + Self.av01 + [1, 0x12, 0])
        #expect(track0.isVideoKeyframe)
        #expect(track1.isVideoFrame && !track1.isVideoKeyframe)
        let config1 = video([0x96, 0x00] + Self.av01 + [1, 0x81])
        #expect(config1.isVideoSequenceHeader && config1.configurationKey == 0x0100)
    }

    @Test("Enhanced RTMP audio: Opus sequence start and multichannel config are configurations, coded frames are frames")
    func enhancedAudio() {
        #expect(audio([0x90] + Self.opus + Array("OpusHead".utf8)).isAudioSequenceHeader)
        let layout = audio([0x94] + Self.opus + [0x01, 0x02, 0, 0, 0, 3])
        #expect(layout.isAudioSequenceHeader)
        // The OpusHead and the channel layout are kept side by side (a regression: the layout replaced the OpusHead, and
        // an archive without it lost Opus's pre-skip).
        #expect(layout.configurationKey != audio([0x90] + Self.opus + Array("OpusHead".utf8)).configurationKey)
        let frame = audio([0x91] + Self.opus + [0xFC, 0xFF])
        #expect(frame.isAudioFrame && !frame.isAudioSequenceHeader)
        #expect(!audio([0x92] + Self.opus).isAudioFrame, "SequenceEnd")
        #expect(!audio([0x91, 0x4F]).hasAudioTagHeader)
    }
}

/// What an archive keeps of a publisher's onMetaData.
@Suite struct ArchivedMetadataTests {
    private func body(_ value: AMF0Value) throws -> [UInt8] {
        var out: [UInt8] = []
        try AMF0Value.string("onMetaData").write(into: &out)
        try value.write(into: &out)
        return out
    }

    @Test("the publisher's duration and filesize are dropped, everything else kept in order")
    func dropsSourceDuration() throws {
        let published = try body(.ecmaArray([
            AMF0Property("duration", .number(20)), AMF0Property("width", .number(320)),
            AMF0Property("filesize", .number(1_000_000)), AMF0Property("videocodecid", .number(7)),
        ]))
        let archived = RelaySession.archivedMetadata(published[...])
        #expect(archived == (try body(.ecmaArray([AMF0Property("width", .number(320)), AMF0Property("videocodecid", .number(7))]))))
    }

    @Test("a data body that is not onMetaData, or does not parse, is kept byte for byte")
    func keepsOtherBodies() throws {
        var other: [UInt8] = []
        try AMF0Value.string("onCuePoint").write(into: &other)
        try AMF0Value.object([AMF0Property("duration", .number(1))]).write(into: &other)
        #expect(RelaySession.archivedMetadata(other[...]) == other)
        let truncated = Array(try body(.ecmaArray([AMF0Property("duration", .number(20))])).dropLast(8))  // cut inside the number
        #expect(RelaySession.archivedMetadata(truncated[...]) == truncated)
    }
}
