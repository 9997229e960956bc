import Foundation

/// The restream latency histogram, printed to standard error at the end of a job when the
/// environment of `sluice` sets `SLUICE_LATENCY_HISTOGRAM=1` (the restream benchmark reads it; the CLI passes it
/// to the relay engine's settings). It covers packets that arrived while their output was connected: the backlog
/// of a (re)connect is not latency.
public enum LatencyReport {
    public static let environmentVariable = "SLUICE_LATENCY_HISTOGRAM"

    /// One line per output: `latency output 0 (name): n=… p50=…ms p99=…ms max=…ms`.
    public static func line(index: Int, name: String, _ histogram: LatencyHistogram) -> String {
        func ms(_ us: UInt64) -> String { String(format: "%.3f", Double(us) / 1000) }
        return "latency output \(index) (\(name)): n=\(histogram.count) p50=\(ms(histogram.percentile(0.5)))ms p99=\(ms(histogram.percentile(0.99)))ms max=\(ms(histogram.maxMicroseconds))ms"
    }
}
