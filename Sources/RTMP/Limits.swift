/// Attack-surface limits of one RTMP connection. Every value a peer controls (chunk size, message length,
/// number of chunk streams) is checked against these before it can drive memory use.
public struct Limits: Sendable, Equatable {
    /// Largest chunk size a peer may announce with Set Chunk Size (§5.4.1); 0 or the top bit set is always refused.
    public var maxChunkSize = 65_536
    /// Largest message length a chunk message header may claim (§5.3.1.2); a 1080p keyframe is well below 8 MiB.
    public var maxMessageLength = 8 << 20
    /// Payload bytes of unfinished messages held at once, all chunk streams together: a peer cannot make every
    /// chunk stream hold a message of `maxMessageLength` (publishers interleave one video and one audio message).
    public var maxPendingBytes = 16 << 20
    /// Distinct chunk stream IDs a peer may use on one connection (publishers use fewer than ten).
    public var maxChunkStreams = 64
    /// The chunk size we announce with Set Chunk Size and then send with.
    public var outgoingChunkSize = 4096
    /// The Window Acknowledgement Size we announce (§5.4.4): the peer acknowledges after this many bytes.
    public var windowAcknowledgementSize: UInt32 = 2_500_000

    /// The documented defaults.
    public init() {}
}
