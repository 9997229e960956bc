import MediaFormats

/// Which video codecs copy mode carries, and how a copied stream's configuration is read from its container's
/// extradata (the same at the start and for new extradata mid-stream).
extension VideoBitstream {
    /// FFmpeg's names of the video codecs copy mode carries: H.264 (legacy FLV, Annex B), HEVC (enhanced FLV,
    /// Annex B), AV1, VP9 and VP8 (enhanced FLV, MP4). A live VP9's or VP8's vpcC comes in its sequence start; a
    /// file's (WebM has none) is read from its first key frame by the codec engine.
    package static let copiedCodecNames: Set<String> = ["h264", "hevc", "av1", "vp9", "vp8"]

    /// The codec as messages name it.
    public var codecName: String {
        switch self {
        case .avcc, .annexB: return "H.264"
        case .hvcc: return "HEVC"
        case .av1: return "AV1"
        case .vp9: return "VP9"
        case .vp8: return "VP8"
        }
    }

    /// The Enhanced RTMP FourCC that carries the codec in FLV; nil for H.264, which keeps the legacy tags.
    package var enhancedFourCC: FLVVideoFourCC? {
        switch self {
        case .avcc, .annexB: return nil
        case .hvcc: return .hvc1
        case .av1: return .av01
        case .vp9: return .vp09
        case .vp8: return .vp08
        }
    }

    /// The configuration of a stream of FFmpeg codec `codec` whose container carries `extradata`.
    /// - Throws: `MediaFormatError` when the record does not parse, or HEVC/AV1 arrive without one (HEVC in Annex B,
    ///   as MPEG-TS carries it, is not copied yet).
    package init(codec: String, extradata: [UInt8]) throws {
        switch codec {
        case "hevc":
            guard HEVCDecoderConfigurationRecord.isHVCC(extradata) else {
                throw MediaFormatError.unsupported(
                    structure: "HEVC stream",
                    reason: "no hvcC record (HEVC in Annex B, as MPEG-TS carries it, is copied from MP4 or Matroska only; set video.mode to encode)")
            }
            self = .hvcc(try HEVCDecoderConfigurationRecord(parsing: extradata))
        case "av1":
            guard !extradata.isEmpty else {
                throw MediaFormatError.unsupported(structure: "AV1 stream", reason: "no av1C record (copied from MP4 or Matroska only)")
            }
            self = .av1(try AV1CodecConfigurationRecord(parsing: extradata))
        case "vp9", "vp8":
            guard !extradata.isEmpty else {
                throw MediaFormatError.unsupported(structure: "\(codec.uppercased()) stream", reason: "no vpcC record")
            }
            let record = try VPCodecConfigurationRecord(parsing: extradata)
            self = codec == "vp9" ? .vp9(record) : .vp8(record)
        default:
            if AVCDecoderConfigurationRecord.isAVCC(extradata) {
                self = .avcc(try AVCDecoderConfigurationRecord(parsing: extradata))
            } else {
                self = .annexB(extradata: extradata)
            }
        }
    }
}
