// ISO/IEC 13818-1 (2019) Table 2-34 stream_type assignments, Table 2-22 stream_id assignments; stream_type 0x06 with
// a registration_descriptor names a format registered outside the standard (Opus).

/// The elementary stream formats carried here, as a PMT names them.
public enum TSStreamCodec: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// stream_type 0x1B: AVC video, Annex B byte stream.
    case h264
    /// stream_type 0x24: HEVC video, Annex B byte stream.
    case hevc
    /// stream_type 0x0F: AAC audio in ADTS.
    case aac
    /// stream_type 0x06 with registration 'Opus', and its Opus audio descriptor when present.
    case opus(OpusAudioDescriptor?)
    /// Any other stream_type (or 0x06 without an 'Opus' registration), carried as PES but not split into access units.
    case other(streamType: UInt8)

    /// stream_type of AVC video.
    public static let h264StreamType: UInt8 = 0x1B
    /// stream_type of HEVC video.
    public static let hevcStreamType: UInt8 = 0x24
    /// stream_type of ADTS AAC.
    public static let aacStreamType: UInt8 = 0x0F
    /// stream_type of PES packets containing private data.
    public static let privateDataStreamType: UInt8 = 0x06

    /// The codec a PMT entry names.
    public init(streamType: UInt8, descriptors: [TSDescriptor]) {
        switch streamType {
        case Self.h264StreamType: self = .h264
        case Self.hevcStreamType: self = .hevc
        case Self.aacStreamType: self = .aac
        case Self.privateDataStreamType where descriptors.contains(where: { $0.formatIdentifier == OpusAudioDescriptor.formatIdentifier }):
            self = .opus(OpusAudioDescriptor(descriptors: descriptors))
        default: self = .other(streamType: streamType)
        }
    }

    /// stream_type in the PMT.
    public var streamType: UInt8 {
        switch self {
        case .h264: Self.h264StreamType
        case .hevc: Self.hevcStreamType
        case .aac: Self.aacStreamType
        case .opus: Self.privateDataStreamType
        case let .other(streamType): streamType
        }
    }

    /// The ES_info descriptors a muxer writes for it.
    public var descriptors: [TSDescriptor] {
        guard case let .opus(audio) = self else { return [] }
        return [.registration(OpusAudioDescriptor.formatIdentifier)] + (audio.map { [$0.descriptor] } ?? [])
    }

    /// stream_id of its PES packets: the first video or audio stream number, private_stream_1 for Opus.
    public var streamID: UInt8 {
        switch self {
        case .h264, .hevc: PESPacketHeader.videoStreamID
        case .aac: PESPacketHeader.audioStreamID
        case .opus, .other: PESPacketHeader.privateStream1ID
        }
    }

    /// H.264 or HEVC.
    public var isVideo: Bool { self == .h264 || self == .hevc }

    public var description: String {
        switch self {
        case .h264: "H.264"
        case .hevc: "HEVC"
        case .aac: "AAC"
        case .opus: "Opus"
        case let .other(streamType): "stream_type 0x\(String(streamType, radix: 16))"
        }
    }
}
