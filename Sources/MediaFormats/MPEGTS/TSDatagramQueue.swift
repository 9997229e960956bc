// SRT and UDP carry a transport stream as datagrams of whole packets: 7 × 188 = 1,316 bytes fits a 1,500-byte MTU
// with the IP, UDP and SRT headers.

/// Collects TS packets and hands them out in datagrams of a fixed number of whole packets.
public struct TSDatagramQueue: Sendable {
    /// The packets per datagram of SRT live mode (1,316 bytes).
    public static let srtPacketsPerDatagram = 7

    /// Packets per datagram.
    public let packetsPerDatagram: Int
    /// Bytes not yet handed out (whole packets, fewer than one datagram after `nextDatagram` returns nil).
    public private(set) var pending: [UInt8] = []
    private var readIndex = 0

    /// A queue cutting datagrams of `packetsPerDatagram` packets (at least 1).
    public init(packetsPerDatagram: Int = srtPacketsPerDatagram) {
        self.packetsPerDatagram = max(1, packetsPerDatagram)
    }

    /// The datagram size in bytes.
    public var datagramSize: Int { packetsPerDatagram * TSPacketHeader.packetSize }

    /// Adds muxer output (whole packets).
    public mutating func append(_ packets: [UInt8]) {
        if readIndex > 0 {
            pending.removeFirst(readIndex)
            readIndex = 0
        }
        pending += packets
    }

    /// The next whole datagram, nil when fewer than `packetsPerDatagram` packets are queued.
    public mutating func nextDatagram() -> [UInt8]? {
        guard pending.count - readIndex >= datagramSize else { return nil }
        defer { readIndex += datagramSize }
        return Array(pending[readIndex..<(readIndex + datagramSize)])
    }

    /// What is left (fewer packets than a datagram, at the end of a stream), nil when nothing is.
    public mutating func flush() -> [UInt8]? {
        guard pending.count > readIndex else { return nil }
        defer {
            pending = []
            readIndex = 0
        }
        return Array(pending[readIndex...])
    }
}
