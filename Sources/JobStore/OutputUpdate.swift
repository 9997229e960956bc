// An output's counters, which are all an RTMP output can report: its bytes cannot be taken back (§6 and §7 of
// docs/ARCHITECTURE.md).

/// A change to one output's row; nil fields are left as they are.
public struct OutputUpdate: Equatable, Sendable {
    /// The output's new state.
    public var state: OutputState?
    /// Total bytes written so far.
    public var bytes: Int64?
    /// Total frames written so far.
    public var frames: Int?
    /// Total packets dropped so far.
    public var drops: Int?
    /// Total reconnections so far.
    public var reconnects: Int?
    /// The latest error (redacted).
    public var lastError: String?
    /// An SRT output's link now.
    public var srt: SRTLinkRecord?

    /// Describes a change; leave a field nil to keep the stored value.
    /// - Parameters:
    ///   - state: the new state.
    ///   - bytes: total bytes written.
    ///   - frames: total frames written.
    ///   - drops: total packets dropped.
    ///   - reconnects: total reconnections.
    ///   - lastError: the latest error.
    ///   - srt: an SRT output's link.
    public init(
        state: OutputState? = nil, bytes: Int64? = nil, frames: Int? = nil, drops: Int? = nil,
        reconnects: Int? = nil, lastError: String? = nil, srt: SRTLinkRecord? = nil
    ) {
        self.srt = srt
        self.state = state
        self.bytes = bytes
        self.frames = frames
        self.drops = drops
        self.reconnects = reconnects
        self.lastError = lastError
    }
}
