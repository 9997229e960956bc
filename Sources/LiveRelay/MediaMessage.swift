import MediaFormats
import MediaJob
import RTMP

/// What a relay needs to know about an audio (8), video (9) or data (18) message, read from the head of its FLV tag
/// body (legacy or Enhanced RTMP, `FLVVideoTagPrefix` / `FLVAudioTagPrefix`) without copying it.
///
/// Multitrack: the gate and the GOP start on the default track (0); every track is relayed.
extension Message {
    /// A tag of the codec job (or of a slate) as a message of the relay's media stream (1), its time modulo 2^32.
    init(tag: FLVStreamTag) {
        self.init(typeID: tag.typeID, timestamp: UInt32(truncatingIfNeeded: tag.timestamp), streamID: 1, payload: tag.data)
    }

    /// The message as a tag at `timestamp` on the job's unbounded timeline, its data `body` (the payload unless given);
    /// nil for a message type that is no FLV tag type.
    func tag(at timestamp: Int64, body: [UInt8]? = nil) -> FLVStreamTag? {
        FLVTagType(rawValue: typeID).map { FLVStreamTag(type: $0, timestamp: timestamp, data: body ?? payload) }
    }

    /// The head of a video message; nil for another type or a head that does not parse.
    var videoPrefix: FLVVideoTagPrefix? {
        guard typeID == MessageType.video.rawValue else { return nil }
        return try? FLVVideoTagPrefix(parsing: payload[...])
    }

    /// The head of an audio message; nil for another type or a head that does not parse.
    var audioPrefix: FLVAudioTagPrefix? {
        guard typeID == MessageType.audio.rawValue else { return nil }
        return try? FLVAudioTagPrefix(parsing: payload[...])
    }

    /// Long enough for its FLV video tag header, with a known frame type and codec: readers refuse the others.
    var hasVideoTagHeader: Bool { videoPrefix != nil }

    /// Long enough for its FLV audio tag header, with a known format: readers refuse the others.
    var hasAudioTagHeader: Bool { audioPrefix != nil }

    // What a message is to the relay, as `FLVTagHead` reads it (one reading of the head serves every question).

    /// A video message to replay to late joiners: a codec configuration (avcC, hvcC, av1C, vpcC) or an ex-header's
    /// Metadata (colorInfo), which FFmpeg sends once before the first key frame.
    var isVideoSequenceHeader: Bool { FLVTagHead(self).role == .videoHeader }

    /// An audio message carrying a configuration (AudioSpecificConfig, OpusHead, a multichannel layout …).
    var isAudioSequenceHeader: Bool { FLVTagHead(self).role == .audioHeader }

    /// Coded pictures (not a configuration, end of sequence, metadata or command).
    var isVideoFrame: Bool { FLVTagHead(self).role == .videoFrame }

    /// A picture of the default track (0) a decoder can start at: where an output or an archive starts.
    var isVideoKeyframe: Bool { FLVTagHead(self).isKeyframe }

    /// Coded audio (not a configuration or end of sequence).
    var isAudioFrame: Bool { FLVTagHead(self).role == .audioFrame }

    /// Keys the configurations replayed to late joiners (`FLVTagHead.configurationKey`).
    var configurationKey: UInt16 { FLVTagHead(self).configurationKey }

    /// AMF0 string "onMetaData" as it starts a metadata body.
    static let onMetaDataName: [UInt8] = [0x02, 0x00, 0x0A] + Array("onMetaData".utf8)
    /// AMF0 string "@setDataFrame": what a publisher puts before onMetaData so the server keeps it.
    static let setDataFrameName: [UInt8] = [0x02, 0x00, 0x0D] + Array("@setDataFrame".utf8)

    /// For a data message holding onMetaData (with or without @setDataFrame before it): the message a
    /// publisher sends, `@setDataFrame onMetaData {…}`. Nil for any other message.
    func asSetDataFrame() -> Message? {
        guard typeID == MessageType.dataAMF0.rawValue else { return nil }
        if payload.starts(with: Message.setDataFrameName) {
            guard payload.dropFirst(Message.setDataFrameName.count).starts(with: Message.onMetaDataName) else { return nil }
            return self
        }
        guard payload.starts(with: Message.onMetaDataName) else { return nil }
        return Message(typeID: typeID, timestamp: timestamp, streamID: streamID, payload: Message.setDataFrameName + payload)
    }
}
