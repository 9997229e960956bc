import RTMP

/// What a relay needs to know about an audio (8), video (9) or data (18) message, read from the first
/// bytes of its FLV tag body without copying it.
extension Message {
    /// Long enough for its FLV video tag header: 1 byte (frame type, codec), 5 for AVC (codec 7).
    var hasVideoTagHeader: Bool {
        guard let first = payload.first else { return false }
        return first & 0x0F != 7 || payload.count >= 5
    }

    /// Long enough for its FLV audio tag header: 1 byte (format, rate, size, type), 2 for AAC (format 10).
    var hasAudioTagHeader: Bool {
        guard let first = payload.first else { return false }
        return first >> 4 != 10 || payload.count >= 2
    }

    /// A video message carrying the AVC sequence header (AVCDecoderConfigurationRecord).
    var isVideoSequenceHeader: Bool {
        typeID == MessageType.video.rawValue && payload.count >= 2 && payload[0] & 0x0F == 7 && payload[1] == 0
    }

    /// An audio message carrying the AAC AudioSpecificConfig.
    var isAudioSequenceHeader: Bool {
        typeID == MessageType.audio.rawValue && payload.count >= 2 && payload[0] >> 4 == 10 && payload[1] == 0
    }

    /// A coded picture (not a sequence header or end of sequence).
    var isVideoFrame: Bool {
        guard typeID == MessageType.video.rawValue, payload.count >= 2 else { return false }
        return payload[0] & 0x0F != 7 || payload[1] == 1
    }

    /// A picture a decoder can start at (FLV frame type 1).
    var isVideoKeyframe: Bool { isVideoFrame && payload[0] >> 4 == 1 }

    /// An audio frame (not a sequence header).
    var isAudioFrame: Bool { typeID == MessageType.audio.rawValue && payload.count >= 1 && !isAudioSequenceHeader }

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
