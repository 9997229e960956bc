/// A listener's answer to a caller's handshake, decided from its streamid and address.
public enum SRTAdmission: Equatable, Sendable {
    /// Let the handshake go on; with a passphrase, the caller must hold the same one (SRTO_PASSPHRASE on the
    /// connection being accepted); without one, an encrypting caller is refused.
    case accept(passphrase: String?)
    /// Refuse the handshake: the caller sees `code` as its reject reason; `reason` goes to the listener's `onRefused`.
    case refuse(reason: String, code: SRTRefusalCode = .forbidden)
}

/// The reject codes a listener sends a refused caller: libsrt's access-control codes (access_control.h), 1000 plus
/// an HTTP status, which ffmpeg and srt-live-transmit print as they are.
public enum SRTRefusalCode: Int32, Equatable, Sendable {
    /// SRT_REJX_BAD_REQUEST: the streamid does not parse.
    case badRequest = 1400
    /// SRT_REJX_FORBIDDEN: the caller may not do what it asked (e.g. publish where only reading is offered).
    case forbidden = 1403
    /// SRT_REJX_NOTFOUND: the streamid names no waiting job.
    case notFound = 1404
    /// SRT_REJX_CONFLICT: the stream already has a publisher.
    case conflict = 1409
}
