// docs/ARCHITECTURE.md §7 (segmented recordings): a recording's segment settings, from its spec.
import JobDocument
import MediaFormats
import MediaJob

extension JobPlan {
    /// The segment settings of a file recording with `segment_s`; nil for any other output.
    /// - Parameter path: the output's resolved path: the segments' name pattern.
    static func segmentSettings(_ output: OutputSpec, path: String) throws(PlanError) -> SegmentSettings? {
        guard output.isSegmented, let seconds = output.segmentSeconds, let whole = Int64(exactly: seconds) else { return nil }
        let pattern: SegmentNamePattern
        do { pattern = try SegmentNamePattern(path) } catch { throw .notAvailable("\(output.url): the segment name pattern \(error)") }
        return SegmentSettings(seconds: whole, pattern: pattern, retainCount: output.retain, retainBytes: output.retainBytes)
    }
}
