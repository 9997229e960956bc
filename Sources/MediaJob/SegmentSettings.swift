// docs/ARCHITECTURE.md §7 (segmented recordings): how a recording output is cut, named and kept, and what it reports
// for the job's record.
import MediaFormats

/// How a segmented recording (`.mp4`, `.ts` or `.flv` with `segment_s`) is cut, named and kept.
public struct SegmentSettings: Sendable, Equatable {
    /// Segments start at the first keyframe at or after each multiple of this many seconds of Unix time.
    public var seconds: Int64
    /// The segments' paths (the output's path, with strftime fields for each segment's start).
    public var pattern: SegmentNamePattern
    /// Closed segments kept, oldest removed first; nil keeps every one.
    public var retainCount: Int?
    /// Bytes of closed segments kept, oldest removed first; nil keeps every byte.
    public var retainBytes: Int64?
    /// Segments earlier attempts of the job closed and did not remove, oldest first: `retain` counts them too.
    public var earlier: [RecordedSegment] = []

    public init(seconds: Int64, pattern: SegmentNamePattern, retainCount: Int? = nil, retainBytes: Int64? = nil) {
        self.seconds = seconds
        self.pattern = pattern
        self.retainCount = retainCount
        self.retainBytes = retainBytes
    }
}

/// A closed segment on disk, as `retain` counts it.
public struct RecordedSegment: Sendable, Equatable {
    public var path: String
    public var bytes: Int64

    public init(path: String, bytes: Int64) {
        self.path = path
        self.bytes = bytes
    }
}

/// A segment closed: complete, synced and (but for the last one, which the job publishes with its end) renamed.
public struct ClosedSegment: Sendable, Equatable {
    public var output: Int
    public var path: String
    /// The wall time of its first packet, Unix seconds.
    public var start: Double
    /// Media seconds it holds (the leading track's).
    public var duration: Double
    public var bytes: Int64
    /// No keyframe came for a whole segment length past its boundary (a GOP longer than `segment_s`).
    public var ranLong: Bool
    /// Timeline jumps inside it (the cut instants were anchored again).
    public var timestampJumps: Int

    public init(output: Int, path: String, start: Double, duration: Double, bytes: Int64, ranLong: Bool = false, timestampJumps: Int = 0) {
        self.output = output
        self.path = path
        self.start = start
        self.duration = duration
        self.bytes = bytes
        self.ranLong = ranLong
        self.timestampJumps = timestampJumps
    }
}

/// What a segmented output tells the job's runner, on the output's own thread, in the order it happened.
public enum SegmentReport: Sendable, Equatable {
    /// A segment is being written (a `.part` until it closes): the record a take-over salvages it from.
    case opened(output: Int, path: String, start: Double)
    case closed(ClosedSegment)
    /// A closed segment removed by `retain`.
    case removed(output: Int, path: String)
}
