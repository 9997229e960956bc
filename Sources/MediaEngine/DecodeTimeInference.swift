import MediaFormats

/// Fills in DTS for video packets that arrive without one (Matroska stores only PTS, so FFmpeg leaves the
/// first B-frame packets undated): such packets wait for the next packet with a DTS and are placed one frame
/// duration apart before it. A stateful transform (a struct with mutating methods) with `reset()`.
struct DecodeTimeInference {
    private var pending: [DemuxedPacket] = []
    /// Packets held at most; past this they are released and the normalizer extrapolates.
    static let maxPending = 32

    /// Takes a packet in decode order; returns the packets whose DTS is now known, in order.
    mutating func push(_ packet: DemuxedPacket, stream: StreamInfo) -> [DemuxedPacket] {
        guard let dts = packet.dts else {
            guard packet.pts != nil, pending.count < DecodeTimeInference.maxPending else {
                return flush() + [packet]
            }
            pending.append(packet)
            return []
        }
        guard !pending.isEmpty else { return [packet] }
        let step = DecodeTimeInference.frameDuration(packet.duration, stream)
        var released = pending
        for index in released.indices {
            var inferred = dts.subtractingSaturating(Int64(released.count - index).multipliedSaturating(by: step))
            // DTS never runs ahead of the frame's own presentation time.
            if let pts = released[index].pts { inferred = min(inferred, pts) }
            released[index].dts = inferred
        }
        pending.removeAll()
        return released + [packet]
    }

    /// Releases whatever still waits (end of input); their DTS stays unknown for the normalizer.
    mutating func flush() -> [DemuxedPacket] {
        defer { pending.removeAll() }
        return pending
    }

    mutating func reset() { pending.removeAll() }

    /// One frame in stream time-base units: the packet's duration, else the stream's average frame rate, else 1/25 s.
    /// A demuxer's rate or time base can be anything (1/2^31, 1/1, a rate of 1e-9): the result is at least 1 tick
    /// and saturates rather than trapping.
    static func frameDuration(_ duration: Int64, _ stream: StreamInfo) -> Int64 {
        if duration > 0 { return duration }
        let rate = stream.averageFrameRate.flatMap { $0.isFinite && $0 > 0 ? $0 : nil } ?? 25
        let ticks = Double(max(stream.timeBaseDenominator, 1)) / (Double(max(stream.timeBaseNumerator, 1)) * rate)
        return max(1, Int64.saturating(ticks) ?? 1)
    }
}
