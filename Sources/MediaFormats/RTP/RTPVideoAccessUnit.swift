// RFC 6184 §5.1 and RFC 7798 §4.1: an access unit is the NAL units of one RTP timestamp, the last packet marked.

/// One access unit put back together from RTP packets: what `H264Depacketizer` and `H265Depacketizer` give.
public struct RTPVideoAccessUnit: Sendable, Equatable {
    /// The NAL units in decoding order, each with its header and without a start code or length prefix.
    public var nalUnits: [[UInt8]]
    /// The RTP timestamp every packet of the access unit carried (presentation time, in the 90 kHz clock).
    public var rtpTimestamp: UInt32
    /// An IDR slice (H.264) or an IRAP picture (H.265): decoding can start here.
    public var isKeyframe: Bool
    /// The marker bit ended it; false when a packet with a new timestamp did (a sender that never marks, or a lost marker).
    public var endedByMarker: Bool
}

/// What a video depacketizer gives for one packet.
public enum RTPVideoDepacketizerOutput: Sendable, Equatable {
    /// A whole access unit.
    case accessUnit(RTPVideoAccessUnit)
    /// The access unit of this RTP timestamp was damaged and dropped; the pictures after it may refer to what was lost,
    /// so decoding should resume at the next keyframe (`awaitingKeyframe` says so until one is delivered).
    case dropped(rtpTimestamp: UInt32, reason: RTPDropReason)
}

/// Why an access unit was dropped: the first thing that damaged it.
public enum RTPDropReason: Sendable, Equatable {
    /// A sequence-number gap of this many packets that may hold part of it.
    case packetLoss(lostPackets: Int)
    /// The sequence number jumped back further than reordering goes: a sender that restarted.
    case sequenceRestart
    /// A payload that could not be read (truncated, a fragment without its start …).
    case malformed(MediaFormatError)
}
