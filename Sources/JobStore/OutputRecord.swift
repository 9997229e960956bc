// docs/ARCHITECTURE.md §6: one row of `job_outputs`, the per-output counters.
import Foundation
import GRDB

/// The state of one output of a job (`job_outputs.state`).
public enum OutputState: String, CaseIterable, Codable, Hashable, Sendable, DatabaseValueConvertible {
    /// Not opened yet.
    case pending
    /// Receiving packets.
    case running
    /// An RTMP output lost its connection and is reconnecting.
    case reconnecting
    /// Closed cleanly (a file output was renamed from `.part`).
    case succeeded
    /// Failed; `last_error` says why.
    case failed
    /// Stopped because the job was cancelled.
    case cancelled
    /// Taken out of the running job by an output edit (`sluice jobs outputs remove`), closed cleanly.
    case removed
}

/// One output of a job as stored in `job_outputs`.
public struct OutputRecord: Codable, Equatable, Sendable, TimestampedRecord {
    /// The job this output belongs to.
    public var jobID: String
    /// Position in the spec's `outputs` array, from 0.
    public var index: Int
    /// The destination, redacted by the caller.
    public var url: String
    /// `flv`, `adts` or `annexb`.
    public var format: String?
    /// Where the output is in its life.
    public var state: OutputState
    /// Bytes written.
    public var bytes: Int64
    /// Frames written.
    public var frames: Int
    /// Packets dropped because the output's queue was full.
    public var drops: Int
    /// RTMP reconnections.
    public var reconnects: Int
    /// The latest error on this output.
    public var lastError: String?
    /// When the row last changed.
    public var updatedAt: Date
    /// An SRT output's link (nil for other outputs, and until its first connection was measured).
    public var srt: SRTLinkRecord? {
        guard let srtRoundTripMilliseconds, let srtSendMegabitsPerSecond, let srtPacketsSent, let srtPacketsLost,
              let srtPacketsRetransmitted, let srtPacketsDropped else { return nil }
        return SRTLinkRecord(roundTripMilliseconds: srtRoundTripMilliseconds, sendMegabitsPerSecond: srtSendMegabitsPerSecond,
                             packetsSent: srtPacketsSent, packetsLost: srtPacketsLost,
                             packetsRetransmitted: srtPacketsRetransmitted, packetsDropped: srtPacketsDropped)
    }
    var srtRoundTripMilliseconds: Double?
    var srtSendMegabitsPerSecond: Double?
    var srtPacketsSent: Int64?
    var srtPacketsLost: Int64?
    var srtPacketsRetransmitted: Int64?
    var srtPacketsDropped: Int64?

    /// Maps properties to the snake_case columns admins see.
    enum CodingKeys: String, CodingKey {
        case url, format, state, bytes, frames, drops, reconnects
        case jobID = "job_id"
        case index = "idx"
        case lastError = "last_error"
        case updatedAt = "updated_at"
        case srtRoundTripMilliseconds = "srt_rtt_ms"
        case srtSendMegabitsPerSecond = "srt_send_mbps"
        case srtPacketsSent = "srt_packets_sent"
        case srtPacketsLost = "srt_packets_lost"
        case srtPacketsRetransmitted = "srt_packets_retransmitted"
        case srtPacketsDropped = "srt_packets_dropped"
    }
}

/// An SRT output's link as stored in `job_outputs.srt_*`: the current round trip (ms) and sending rate (Mb/s); packets
/// sent, lost (reported by the receiver), retransmitted and dropped (too late to send) over the attempt's connections.
public struct SRTLinkRecord: Equatable, Sendable {
    public var roundTripMilliseconds: Double
    public var sendMegabitsPerSecond: Double
    public var packetsSent: Int64
    public var packetsLost: Int64
    public var packetsRetransmitted: Int64
    public var packetsDropped: Int64

    public init(roundTripMilliseconds: Double, sendMegabitsPerSecond: Double, packetsSent: Int64, packetsLost: Int64,
                packetsRetransmitted: Int64, packetsDropped: Int64) {
        self.roundTripMilliseconds = roundTripMilliseconds
        self.sendMegabitsPerSecond = sendMegabitsPerSecond
        self.packetsSent = packetsSent
        self.packetsLost = packetsLost
        self.packetsRetransmitted = packetsRetransmitted
        self.packetsDropped = packetsDropped
    }

    /// Lost packets per packet sent, 0 before any was sent.
    public var lossRatio: Double { packetsSent > 0 ? Double(packetsLost) / Double(packetsSent) : 0 }

    /// One line for people: `rtt 12.3 ms, 4.1 Mb/s, 0.52 % lost (31 of 5,962), 30 retransmitted, 0 dropped`.
    public var summary: String {
        String(format: "rtt %.1f ms, %.1f Mb/s, %.2f %% lost (%lld of %lld), %lld retransmitted, %lld dropped",
               roundTripMilliseconds, sendMegabitsPerSecond, lossRatio * 100, packetsLost, packetsSent, packetsRetransmitted, packetsDropped)
    }
}
