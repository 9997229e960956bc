/// A connection's counters as libsrt keeps them (`srt_bstats`): totals since the connection began, rates over the
/// interval since the previous `statistics()` call (or since the start). Pure values.
public struct SRTStatistics: Equatable, Sendable {
    /// Smoothed round-trip time in milliseconds.
    public var roundTripMilliseconds: Double
    /// Data packets sent, retransmissions included.
    public var packetsSent: Int64
    /// Data packets received.
    public var packetsReceived: Int64
    /// Packets the peer reported lost (sender side).
    public var packetsSendLost: Int64
    /// Packets found missing on arrival (receiver side).
    public var packetsReceiveLost: Int64
    /// Packets sent again.
    public var packetsRetransmitted: Int64
    /// Packets dropped as too late to send.
    public var packetsSendDropped: Int64
    /// Packets dropped as too late to play.
    public var packetsReceiveDropped: Int64
    /// Bytes sent, retransmissions included.
    public var bytesSent: UInt64
    /// Bytes received.
    public var bytesReceived: UInt64
    /// Sending rate over the interval, in Mb/s.
    public var sendMegabitsPerSecond: Double
    /// Receiving rate over the interval, in Mb/s.
    public var receiveMegabitsPerSecond: Double
    /// Packets sent and not yet acknowledged (the send buffer's backlog).
    public var unacknowledgedPackets: Int

    public init(roundTripMilliseconds: Double = 0, packetsSent: Int64 = 0, packetsReceived: Int64 = 0,
                packetsSendLost: Int64 = 0, packetsReceiveLost: Int64 = 0, packetsRetransmitted: Int64 = 0,
                packetsSendDropped: Int64 = 0, packetsReceiveDropped: Int64 = 0, bytesSent: UInt64 = 0,
                bytesReceived: UInt64 = 0, sendMegabitsPerSecond: Double = 0, receiveMegabitsPerSecond: Double = 0,
                unacknowledgedPackets: Int = 0) {
        self.roundTripMilliseconds = roundTripMilliseconds
        self.packetsSent = packetsSent
        self.packetsReceived = packetsReceived
        self.packetsSendLost = packetsSendLost
        self.packetsReceiveLost = packetsReceiveLost
        self.packetsRetransmitted = packetsRetransmitted
        self.packetsSendDropped = packetsSendDropped
        self.packetsReceiveDropped = packetsReceiveDropped
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
        self.sendMegabitsPerSecond = sendMegabitsPerSecond
        self.receiveMegabitsPerSecond = receiveMegabitsPerSecond
        self.unacknowledgedPackets = unacknowledgedPackets
    }
}
