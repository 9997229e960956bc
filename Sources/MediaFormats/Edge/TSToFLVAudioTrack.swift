// Adobe FLV v10.1 §E.4.2.1 (legacy AAC: AACPacketType 0 AudioSpecificConfig, 1 raw frame) and Enhanced RTMP v2
// "Enhanced Audio" (Opus: SequenceStart carrying the RFC 7845 §5.1 OpusHead, then CodedFrames), made from the access
// units of an MPEG-TS audio stream (ADTS AAC, ISO/IEC 13818-7 §6.2; Opus behind opus_control_header).

/// One TS audio stream (AAC or Opus) turned into FLV audio tag data.
struct TSToFLVAudioTrack: Sendable {
    /// What one access unit gave.
    enum Output: Sendable, Equatable {
        /// Tag data to send, in order (a sequence header, then the frame).
        case tags([[UInt8]])
        /// The stream's configuration cannot be expressed (an Opus channel layout without an OpusHead mapping).
        case unsupported
    }

    let pid: UInt16
    let codec: TSStreamCodec
    /// The configuration last sent (AudioSpecificConfig or OpusHead bytes); nil before the first.
    private var sentConfiguration: [UInt8]?
    /// Opus: the OpusHead the PMT's descriptor gives; nil for a layout OpusHead cannot express.
    private let opusHead: [UInt8]?

    /// A track for `codec`, nil when it is not AAC or Opus.
    init?(pid: UInt16, codec: TSStreamCodec) {
        switch codec {
        case .aac:
            opusHead = nil
        case let .opus(descriptor):
            // No descriptor: a stereo stream (mapping family 0), as FFmpeg's demuxer assumes. Pre-skip is not carried in
            // TS (the first packets' start_trim says it), so it is 0.
            let head = descriptor == nil ? OpusIDHeader(channelCount: 2, preSkip: 0, inputSampleRate: 48000) : descriptor?.idHeader
            opusHead = try? head?.serialized()
        default:
            return nil
        }
        self.pid = pid
        self.codec = codec
    }

    /// The tag data for one access unit: the sequence header first when the configuration is new or changed.
    mutating func convert(_ unit: TSAccessUnit) throws -> Output {
        let configuration: [UInt8]
        let fourCC: FLVAudioFourCC
        switch codec {
        case .aac:
            guard let config = unit.audioSpecificConfig else { return .unsupported }
            configuration = config.bytes
            fourCC = .mp4a
        case .opus:
            guard let opusHead else { return .unsupported }
            configuration = opusHead
            fourCC = .opus
        default:
            return .unsupported
        }
        var tags: [[UInt8]] = []
        if configuration != sentConfiguration {
            tags.append(try data(.sequenceStart, fourCC: fourCC, payload: configuration[...]))
            sentConfiguration = configuration
        }
        tags.append(try data(.codedFrames, fourCC: fourCC, payload: unit.payload[...]))
        return .tags(tags)
    }

    /// Legacy AAC (what every RTMP receiver reads), an Opus ex-header for Opus.
    private func data(_ packetType: FLVAudioPacketType, fourCC: FLVAudioFourCC, payload: ArraySlice<UInt8>) throws -> [UInt8] {
        guard fourCC == .mp4a else {
            return try FLVAudioData(packetType: packetType, fourCC: fourCC, payload: payload).serialized()
        }
        var out: [UInt8] = []
        FLVAudioTagHeader(aacPacketType: packetType == .sequenceStart ? .sequenceHeader : .raw).write(into: &out)
        out += payload
        return out
    }
}
