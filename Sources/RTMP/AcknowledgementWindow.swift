// RTMP specification 1.0, §5.4.3–§5.4.4: the receiver acknowledges each time it has read the peer's
// Window Acknowledgement Size in bytes since its last Acknowledgement.

/// Counts received bytes and says where an Acknowledgement is due. The sequence number is the total received,
/// modulo 2^32.
public struct AcknowledgementWindow: Sendable, Equatable {
    /// The peer's Window Acknowledgement Size; 0 until it sends one (then nothing is acknowledged).
    public var windowSize: UInt32 = 0
    /// Bytes received so far, modulo 2^32 (the Acknowledgement's sequence number).
    public private(set) var sequenceNumber: UInt32 = 0
    private var sinceAcknowledgement: UInt32 = 0

    /// A window that acknowledges nothing until `windowSize` is set.
    public init(windowSize: UInt32 = 0, sequenceNumber: UInt32 = 0) {
        self.windowSize = windowSize
        self.sequenceNumber = sequenceNumber
    }

    /// How many of `available` bytes may be read before the next Acknowledgement falls due.
    public func bytesUntilAcknowledgement(available: Int) -> Int {
        guard windowSize > 0 else { return available }
        let left = windowSize > sinceAcknowledgement ? windowSize - sinceAcknowledgement : 1
        return min(available, Int(left))
    }

    /// Records `count` bytes read; returns the sequence number to acknowledge when the window is reached.
    public mutating func received(_ count: Int) -> UInt32? {
        let bytes = UInt32(truncatingIfNeeded: count)
        sequenceNumber &+= bytes
        sinceAcknowledgement = sinceAcknowledgement.addingReportingOverflow(bytes).overflow ? .max : sinceAcknowledgement + bytes
        guard windowSize > 0, sinceAcknowledgement >= windowSize else { return nil }
        sinceAcknowledgement = 0
        return sequenceNumber
    }
}
