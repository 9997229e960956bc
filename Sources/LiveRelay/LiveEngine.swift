import MediaEngine

/// The event-driven live engine: live copy jobs (an RTMP pull or listen, RTMP/RTMPS and FLV outputs) relayed on a
/// fixed set of event-loop threads, whatever the number of streams.
///
/// API first: until the relay lands, `supports` answers false and jobs keep running on `CopyPipeline`.
public final class LiveEngine: Sendable {
    public init() {}

    /// Whether this engine runs these pipeline options (a live copy job whose outputs are all FLV).
    public static func supports(_ options: PipelineOptions) -> Bool { false }
}
