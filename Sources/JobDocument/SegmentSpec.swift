// docs/ARCHITECTURE.md §8: `segment_s`, `retain` and `retain_bytes` of an output: HLS's segment length, or a file
// recording cut into segments on the wall clock and named by a pattern (docs/JOBS.md "Recordings in segments").
import MediaFormats

extension SpecValidator {
    /// The formats a recording can be cut into segments in: each segment is a whole file of its own.
    static let segmentedFormats: Set<OutputFormat> = [.mp4, .mpegts, .flv]

    /// Whether an output's segment settings fit its format; reports what does not.
    mutating func segmentsAllowed(format: OutputFormat, isNetwork: Bool, url: String, segment: Double?, window: Int?,
                                  retains: Bool, path: String) -> Bool {
        if format == .hls {
            if retains {
                problem(path, "retain and retain_bytes apply to recordings in segments (.mp4, .ts, .flv with segment_s), not to HLS (use window)")
                return false
            }
            if let segment, !JobLimits.hlsSegmentSeconds.contains(segment) {
                let range = JobLimits.hlsSegmentSeconds
                problem("\(path).segment_s", "must be from \(JobLimits.format(range.lowerBound)) to \(JobLimits.format(range.upperBound)) (seconds) for HLS, got \(JobLimits.format(segment))")
                return false
            }
            return true
        }
        if window != nil {
            problem(path, "window applies to HLS outputs (.m3u8) only")
            return false
        }
        guard let segment else {
            if retains { problem(path, "retain and retain_bytes need segment_s (a recording in segments)") }
            return !retains
        }
        guard !isNetwork, SpecValidator.segmentedFormats.contains(format) else {
            problem(path, "segment_s applies to HLS outputs and to file recordings in .mp4, .ts or .flv, not to \(isNetwork ? "RTMP or SRT outputs" : format.displayName)")
            return false
        }
        guard segment.rounded() == segment else {
            problem("\(path).segment_s", "must be a whole number of seconds for a recording, got \(JobLimits.format(segment))")
            return false
        }
        do {
            _ = try SegmentNamePattern(url)
        } catch {
            problem("\(path).url", "is a segment name pattern that \(error)")
            return false
        }
        return true
    }
}
