/// G.711 decoded at the RTP edge, for the job to encode: 16-bit samples, channels interleaved, starting at
/// `milliseconds` on the timeline.
public struct EdgePCMBlock: Sendable, Equatable {
    public var milliseconds: Int64
    public var samples: [Int16]
    public var sampleRate: Int
    public var channels: Int
    /// The block does not continue the one before (the first, or after a jump too long to fill with silence): an
    /// encoder starts its clock again here.
    public var startsRun: Bool
}
