// RFC 4566 §6 (a=rtpmap, a=fmtp) with the payload formats' SDP parameters: RFC 6184 §8.1 (H264), RFC 7798 §7.1
// (H265), the AOMedia AV1 RTP payload format §7.1 (AV1), RFC 7741 §6.1 (VP8), RFC 9628 §6.1 (VP9), RFC 3640 §4.1 (mpeg4-generic), RFC 6416 §7.3 (MP4A-LATM), RFC 7587 §6 (opus), RFC 3551 §4.5.14 (PCMA, PCMU).

/// What one RTP stream of a session description carries, as the RTP edge converts it.
public enum RTPTrackCodec: Sendable, Equatable {
    /// H.264, with the parameter sets of `sprop-parameter-sets` (SPS then PPS; empty when sent in band only).
    case h264(parameterSets: [[UInt8]])
    /// H.265, with `sprop-vps`, `sprop-sps` and `sprop-pps` in that order.
    case hevc(parameterSets: [[UInt8]])
    /// AV1: its sequence header comes in band, before each key frame.
    case av1
    /// VP8 and VP9: what a key frame says is the configuration.
    case vp8, vp9
    /// AAC in RFC 3640's mpeg4-generic packets.
    case aac(MPEG4GenericParameters)
    /// AAC in RFC 6416's MP4A-LATM packets, its StreamMuxConfig out of band.
    case aacLATM(LATMStreamMuxConfig)
    /// G.711: no output carries it, so the edge decodes it and the job encodes it to AAC.
    case g711(G711Law, channels: Int)
    /// Opus (always a 48 kHz RTP clock); the channels the rtpmap gives (2 by RFC 7587, `sprop-stereo` aside).
    case opus(channels: Int)

    public var isVideo: Bool {
        switch self {
        case .h264, .hevc, .av1, .vp8, .vp9: true
        case .aac, .aacLATM, .opus, .g711: false
        }
    }

    /// AAC's configuration, from either payload format's SDP parameters; nil for the other codecs.
    public var audioSpecificConfig: AudioSpecificConfig? {
        switch self {
        case let .aac(parameters): parameters.config
        case let .aacLATM(mux): mux.audioSpecificConfig
        case .h264, .hevc, .av1, .vp8, .vp9, .opus, .g711: nil
        }
    }

    /// The codec's name in a job's log.
    public var name: String {
        switch self {
        case .h264: "H.264"
        case .hevc: "H.265"
        case .av1: "AV1"
        case .vp8: "VP8"
        case .vp9: "VP9"
        case .aac: "AAC"
        case .aacLATM: "AAC (MP4A-LATM)"
        case .opus: "Opus"
        case let .g711(law, _): law.name
        }
    }
}

/// One media section of a session description as the RTP edge reads it: the payload type it takes, the RTP clock and
/// the codec.
public struct RTPTrackFormat: Sendable, Equatable {
    public var payloadType: UInt8
    /// Ticks per second of the stream's RTP timestamps.
    public var clockRate: Int
    public var codec: RTPTrackCodec
    /// The RTP timestamp of the play range's start (RTSP's RTP-Info): every track that has one shares that instant.
    public var playStartRTPTime: UInt32?

    public init(payloadType: UInt8, clockRate: Int, codec: RTPTrackCodec, playStartRTPTime: UInt32? = nil) {
        self.payloadType = payloadType
        self.clockRate = clockRate
        self.codec = codec
        self.playStartRTPTime = playStartRTPTime
    }

    /// The first payload type of `media` the edge converts. Throws `unsupported` naming what the section offers
    /// (G.722, L16 …) when there is none, `invalid` when its parameters cannot be read.
    public init(media: MediaDescription, playStartRTPTime: UInt32? = nil) throws {
        var offered: [String] = []
        for payloadType in media.payloadTypes {
            guard let map = media.rtpMaps[payloadType] ?? Self.staticMap(payloadType) else {
                offered.append("payload type \(payloadType) without an rtpmap")
                continue
            }
            guard map.clockRate > 0 else {
                throw MediaFormatError.invalid(structure: "SDP", reason: "payload type \(payloadType) has a clock rate of 0")
            }
            let codec: RTPTrackCodec
            switch map.encodingName.uppercased() {
            case "H264":
                let sets = try media.h264ParameterSets(payloadType: payloadType)
                codec = .h264(parameterSets: sets.sps + sets.pps)
            case "H265":
                let sets = try media.hevcParameterSets(payloadType: payloadType)
                codec = .hevc(parameterSets: sets.vps + sets.sps + sets.pps)
            case "AV1":
                codec = .av1
            case "VP8":
                codec = .vp8
            case "VP9":
                codec = .vp9
            case "MPEG4-GENERIC":
                codec = .aac(try media.mpeg4GenericParameters(payloadType: payloadType))
            case "MP4A-LATM":
                let parameters = media.formatParameters[payloadType] ?? [:]
                // RFC 6416 §7.3: cpresent defaults to 1, the configuration in every element.
                guard parameters["cpresent"] == "0" else {
                    throw MediaFormatError.unsupported(structure: "SDP \(media.media) section",
                                                       reason: "MP4A-LATM with its StreamMuxConfig in band (cpresent is not 0)")
                }
                guard let config = parameters["config"] else {
                    throw MediaFormatError.invalid(structure: "SDP \(media.media) section", reason: "MP4A-LATM without a config")
                }
                codec = .aacLATM(try LATMStreamMuxConfig(hex: config))
            case "PCMA", "PCMU":
                codec = .g711(map.encodingName.uppercased() == "PCMA" ? .aLaw : .muLaw, channels: max(1, min(map.channels ?? 1, 8)))
            case "OPUS":
                let stereo = media.formatParameters[payloadType]?["sprop-stereo"]
                codec = .opus(channels: stereo == "0" ? 1 : max(1, min(map.channels ?? 2, 2)))
            default:
                offered.append(map.encodingName)
                continue
            }
            self.init(payloadType: payloadType, clockRate: map.clockRate, codec: codec, playStartRTPTime: playStartRTPTime)
            return
        }
        throw MediaFormatError.unsupported(structure: "SDP \(media.media) section",
                                           reason: "\(offered.joined(separator: ", ")) (H.264, H.265, AV1, VP9, VP8, AAC, Opus and G.711 are carried)")
    }

    /// The static payload types of RFC 3551 §6 a camera may leave without an rtpmap (G.711, the usual ones).
    private static func staticMap(_ payloadType: UInt8) -> MediaDescription.RTPMap? {
        switch payloadType {
        case 0: MediaDescription.RTPMap(encodingName: "PCMU", clockRate: 8000, channels: 1)
        case 8: MediaDescription.RTPMap(encodingName: "PCMA", clockRate: 8000, channels: 1)
        default: nil
        }
    }
}
