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
    /// An SRT output's link as libsrt measures it; nil for any other output.
    public var srt: SRTLinkStatistics?

    public init() {}
}

/// What libsrt measured of an SRT output's link (`srt_bstats`): the packet counters summed over every connection
/// the output made, the round trip and rate of the current one.
public struct SRTLinkStatistics: Sendable, Equatable {
    /// The current connection's smoothed round-trip time, in milliseconds.
    public var roundTripMilliseconds: Double = 0
    /// The current connection's sending rate over the last interval (about a second), in Mb/s.
    public var sendMegabitsPerSecond: Double = 0
    /// Data packets sent, retransmissions included.
    public var packetsSent: Int64 = 0
    /// Packets the receiver reported lost.
    public var packetsLost: Int64 = 0
    /// Packets sent again.
    public var packetsRetransmitted: Int64 = 0
    /// Packets dropped as too late to send (past the latency).
    public var packetsDropped: Int64 = 0

    public init(roundTripMilliseconds: Double = 0, sendMegabitsPerSecond: Double = 0, packetsSent: Int64 = 0,
                packetsLost: Int64 = 0, packetsRetransmitted: Int64 = 0, packetsDropped: Int64 = 0) {
        self.roundTripMilliseconds = roundTripMilliseconds
        self.sendMegabitsPerSecond = sendMegabitsPerSecond
        self.packetsSent = packetsSent
        self.packetsLost = packetsLost
        self.packetsRetransmitted = packetsRetransmitted
        self.packetsDropped = packetsDropped
    }

    /// The counters of `self` (closed connections) plus those of `current`, with `current`'s round trip and rate.
    public func adding(_ current: SRTLinkStatistics) -> SRTLinkStatistics {
        SRTLinkStatistics(roundTripMilliseconds: current.roundTripMilliseconds, sendMegabitsPerSecond: current.sendMegabitsPerSecond,
                          packetsSent: packetsSent &+ current.packetsSent, packetsLost: packetsLost &+ current.packetsLost,
                          packetsRetransmitted: packetsRetransmitted &+ current.packetsRetransmitted,
                          packetsDropped: packetsDropped &+ current.packetsDropped)
    }
}
