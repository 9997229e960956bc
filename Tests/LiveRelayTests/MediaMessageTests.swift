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
