// RFC 7983 §7 (updating RFC 5764 §5.1.2): one UDP port carries STUN, DTLS and SRTP/SRTCP, told apart by the first byte.

/// What a datagram on the shared WebRTC media port is, from its first byte.
public enum WebRTCPacketKind: Sendable, Equatable {
    /// 0...3: a STUN message (ICE connectivity checks and consent).
    case stun
    /// 20...63: a DTLS record (the handshake, then alerts).
    case dtls
    /// 128...191: RTP or RTCP (SRTP and SRTCP once keyed); `RTCPPacketType` tells them apart.
    case rtp
    /// 16...19 (ZRTP), 64...79 (TURN channels) and the rest: nothing a WebRTC peer of this worker sends.
    case other

    /// The kind of `datagram`; an empty one is `.other`.
    public init<Bytes: Collection<UInt8>>(classifying datagram: Bytes) {
        guard let first = datagram.first else {
            self = .other
            return
        }
        switch first {
        case 0...3: self = .stun
        case 20...63: self = .dtls
        case 128...191: self = .rtp
        default: self = .other
        }
    }
}
