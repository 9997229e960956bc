// Where an output is and what it has done, readable from any thread.

/// Where an output is in its life.
public enum OutputStatus: String, Sendable, Equatable {
    /// A network output opening its first connection.
    case connecting
    case running
    /// A network output lost its connection and is waiting or trying again.
    case reconnecting
    /// Closed cleanly.
    case finished
    /// Failed: a file output fails the job; a network output that ran out of attempts is left behind.
    case failed
    /// Closed cleanly while the job went on: taken out of a running job by an output edit.
    case removed
}

/// Counters of one output, readable from any thread.
public struct OutputProgress: Sendable, Equatable {
    public var packets: Int = 0
    public var videoFrames: Int = 0
    /// Bytes written, over every connection of a network output.
    public var bytes: Int64 = 0
    /// Packets never written: dropped on overflow, or while a network output reconnected.
    public var drops: Int = 0
    /// Connection attempts after the first (a network output).
    public var reconnects: Int = 0
    /// The latest error, even one the output recovered from.
    public var lastError: String?
    public var status: OutputStatus = .running
    public var failed: Bool { status == .failed }

    public init() {}
}
