// RFC 8829 §5.3 generating an answer; RFC 3264 §6 what an answer to each m= line holds. The negotiation's output.

/// An answer to a WebRTC offer: the description to send back, and what the engine needs to carry the media.
public struct WebRTCAnswer: Sendable, Equatable {
    /// The answer; `render()` gives the text for the WHIP or WHEP response body.
    public var description: SessionDescription
    /// The accepted tracks, in the offer's order (at most one video and one audio).
    public var tracks: [WebRTCNegotiatedTrack]
    /// The m= lines answered with port 0, and why.
    public var rejected: [WebRTCRejectedMedia]
    /// The peer's ICE credentials and DTLS fingerprint and role, from the BUNDLE transport's section.
    public var remote: WebRTCRemoteTransport
}

/// What was agreed for one track.
public struct WebRTCNegotiatedTrack: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable { case video, audio }

    public var mid: String
    public var kind: Kind
    public var codec: WebRTCCodec
    public var payloadType: UInt8
    public var clockRate: Int
    public var channels: Int?
    /// The chosen payload type's fmtp, names lowercased.
    public var formatParameters: [String: String]
    /// The rtx payload type answered with the media one (only when the negotiation takes rtx).
    public var rtxPayloadType: UInt8?
    /// "nack": the receiver asks for lost packets.
    public var nack: Bool
    /// "nack pli": the receiver asks for a keyframe.
    public var pictureLossIndication: Bool
    /// "ccm fir": the receiver may ask for a full intra refresh.
    public var fullIntraRequest: Bool
    /// "transport-cc" (only when the negotiation takes it).
    public var transportWideCongestionControl: Bool
    /// The direction the answer takes: recvonly for WHIP, sendonly for WHEP.
    public var direction: MediaDirection
    /// The peer's media SSRCs when its a=ssrc lines give them (a WHIP publisher's usually do), rtx SSRCs excluded.
    public var remoteSSRCs: [UInt32]
    /// The peer's rtx SSRC from an `a=ssrc-group:FID`.
    public var remoteRTXSSRC: UInt32?
    /// The extmap id of the sdes:mid header extension, when offered (and so answered).
    public var midExtensionID: UInt8?
    /// The extmap id of the transport-wide sequence number, when transport-cc was taken.
    public var transportWideSequenceExtensionID: UInt8?
    /// Our SSRC for this track (WHEP).
    public var localSSRC: UInt32?
    /// Our rtx SSRC (WHEP, with rtx taken).
    public var localRTXSSRC: UInt32?
}

/// An m= line the answer rejects with port 0.
public struct WebRTCRejectedMedia: Sendable, Equatable {
    /// Its position among the offer's m= lines.
    public var index: Int
    public var media: String
    public var mid: String?
    public var reason: String
}

/// The peer's side of the one transport every track shares.
public struct WebRTCRemoteTransport: Sendable, Equatable {
    public var iceUfrag: String
    public var icePassword: String
    /// The peer's SHA-256 certificate fingerprint: the DTLS handshake must present a certificate with this hash.
    public var fingerprint: DTLSFingerprint
    /// What the peer offered ("actpass", "active", or absent, which RFC 4145 §4 reads as active).
    public var setup: DTLSSetup?
    public var iceOptions: [String]
}
