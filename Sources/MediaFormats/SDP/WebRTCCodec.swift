// RFC 8866 §6.6 rtpmap encoding names as WebRTC offers them (RFC 7742 §5 video, RFC 7874 §3 audio), compared without case.

/// What an rtpmap names, so a caller can say "VP8 offered, this job takes H.264".
public enum WebRTCCodec: Sendable, Equatable, CustomStringConvertible {
    case h264, h265, vp8, vp9, av1, opus, g722, pcmu, pcma
    /// RFC 4588 retransmission, RFC 2198 redundancy, RFC 5109 and RFC 8627 forward error correction: not media of their own.
    case rtx, red, ulpfec, flexfec
    case other(String)

    public init(encodingName: String) {
        switch encodingName.uppercased() {
        case "H264": self = .h264
        case "H265": self = .h265
        case "VP8": self = .vp8
        case "VP9": self = .vp9
        case "AV1", "AV1X": self = .av1
        case "OPUS": self = .opus
        case "G722": self = .g722
        case "PCMU": self = .pcmu
        case "PCMA": self = .pcma
        case "RTX": self = .rtx
        case "RED": self = .red
        case "ULPFEC": self = .ulpfec
        case "FLEXFEC", "FLEXFEC-03": self = .flexfec
        default: self = .other(encodingName)
        }
    }

    /// Whether it carries media (not retransmission, redundancy or FEC of another payload type).
    public var isMedia: Bool {
        switch self {
        case .rtx, .red, .ulpfec, .flexfec: false
        default: true
        }
    }

    public var description: String {
        switch self {
        case .h264: "H.264"
        case .h265: "H.265"
        case .vp8: "VP8"
        case .vp9: "VP9"
        case .av1: "AV1"
        case .opus: "Opus"
        case .g722: "G.722"
        case .pcmu: "PCMU"
        case .pcma: "PCMA"
        case .rtx: "rtx"
        case .red: "red"
        case .ulpfec: "ulpfec"
        case .flexfec: "flexfec"
        case let .other(name): name
        }
    }
}
