import MediaFormats
import Foundation

/// RTMP/RTMPS publishing: an FLV sink over libavformat's AVIO rtmp protocol, (re)opened on the output's
/// own thread by `OutputWorker`.
enum NetworkOutput {
    /// AVIO options for a publish. `rw_timeout` (µs) bounds a stalled write inside FFmpeg; `timeout`
    /// is never set: on a client rtmp URL it means "listen".
    static func avioOptions(timeout: Double?) -> [String: String] {
        guard let timeout, timeout > 0 else { return [:] }
        // Saturating: a timeout too long for Int64 µs is as good as none, never a trap.
        return ["rw_timeout": String(Int64.saturating(timeout * 1_000_000) ?? Int64.max)]
    }

    /// The worker of one `rtmp://`/`rtmps://` output, with its own interrupter so that a dead
    /// destination's connect or stalled write never interrupts the input or another output.
    static func worker(index: Int, description: OutputDescription, url: String, video: VideoConfiguration?,
                       audio: AudioConfiguration?, options: PipelineOptions) throws -> OutputWorker {
        guard description.kind == .flv else {
            throw OutputError.unsupported(output: description.name, reason: "RTMP carries FLV only")
        }
        guard video != nil || audio != nil else {
            throw OutputError.missingStream(output: description.name, kind: "audio or video")
        }
        let interrupter = Interrupter()
        let avio = avioOptions(timeout: options.networkTimeout)
        let name = description.name
        return OutputWorker(index: index, name: name, video: video, audio: audio, policy: options.reconnect,
                            interrupter: interrupter, timeout: options.networkTimeout,
                            measuresLatency: LatencyReport.isEnabled) { video, audio in
            let writer = try TargetWriter(target: .network(url: url), interrupter: interrupter, options: avio)
            return FLVSink(writer: writer, name: name, video: video, audio: audio)
        }
    }
}

/// The restream latency histogram, printed to standard error at the end of a pipeline when the
/// environment sets `SLUICE_LATENCY_HISTOGRAM=1` (the restream benchmark reads it). It covers packets
/// that arrived while their output was connected: the backlog of a (re)connect is not latency.
public enum LatencyReport {
    public static let environmentVariable = "SLUICE_LATENCY_HISTOGRAM"
    public static let isEnabled = ProcessInfo.processInfo.environment[environmentVariable] == "1"

    /// One line per output: `latency output 0 (name): n=… p50=…ms p99=…ms max=…ms`.
    public static func line(index: Int, name: String, _ histogram: LatencyHistogram) -> String {
        func ms(_ us: UInt64) -> String { String(format: "%.3f", Double(us) / 1000) }
        return "latency output \(index) (\(name)): n=\(histogram.count) p50=\(ms(histogram.percentile(0.5)))ms p99=\(ms(histogram.percentile(0.99)))ms max=\(ms(histogram.maxMicroseconds))ms"
    }
}
