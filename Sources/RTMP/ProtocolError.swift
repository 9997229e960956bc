/// Why an RTMP peer's bytes were refused. The connection cannot continue after one: the caller closes it.
public struct ProtocolError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The class of violation, for callers and tests to match on.
    public enum Kind: Sendable, Equatable {
        /// C0/S0 named a version other than 3 (6 is encrypted RTMPE, not supported).
        case unsupportedVersion
        /// Set Chunk Size of 0, with the top bit set, or above `Limits.maxChunkSize`.
        case invalidChunkSize
        /// A chunk message header claimed more than `Limits.maxMessageLength`.
        case messageTooLong
        /// More distinct chunk stream IDs than `Limits.maxChunkStreams`.
        case tooManyChunkStreams
        /// A chunk header that cannot be applied (e.g. type 1–3 with no previous header on its chunk stream).
        case malformedChunk
        /// A message whose payload does not match its type (short control message, bad AMF0 command).
        case malformedMessage
        /// A command out of order (publish before connect, a second publish).
        case unexpectedCommand
    }

    /// The class of violation.
    public var kind: Kind
    /// What was wrong, naming the structure as the RTMP specification does (never a stream key).
    public var detail: String

    /// An error of `kind` described by `detail`.
    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    public var description: String { "RTMP protocol error: \(detail)" }
}
