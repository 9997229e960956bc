// One RTMP stack for every job (docs/ARCHITECTURE.md §1, §4). Every rtmp/rtmps byte goes through the relay engine
// (LiveRelay); the codec engine reaches it only through these protocols, so MediaEngine links no network
// code and libavformat opens files only. What passes between them is `FLVStreamTag` (MediaFormats): one FLV tag as an
// RTMP message carries it.
import MediaFormats

/// One RTMP/RTMPS destination of a job.
public struct LiveDestination: Sendable, Equatable {
    /// The output's index in the job.
    public var index: Int
    /// The redacted URL, for messages.
    public var name: String
    /// The full URL (stream key included): never logged.
    public var url: String
    /// A WHEP output's viewer token (a secret like a stream key); nil for the others.
    public var token: String?

    public init(index: Int, name: String, url: String, token: String? = nil) {
        self.index = index
        self.name = name
        self.url = url
        self.token = token
    }
}

/// The relay engine as the engine sees it: publishes FLV tags to RTMP destinations, and delivers a live input
/// (a pull, or a publisher routed by the shared ingest listener) as FLV tags.
public protocol LiveTransport: AnyObject, Sendable {
    /// Starts publishing to one destination and returns at once: connects, reconnects with the job's backoff,
    /// drops to the next keyframe when the destination falls behind, verifies rtmps:// servers.
    func publish(to destination: LiveDestination, options: MediaJobOptions) -> any LivePublication

    /// Starts the job's live input (`options.inputURL`: a pull, or a listen when `options.listens`) and hands its
    /// tags to `consumer`, on an event loop, one read burst at a time, until the input ends or `stop` is called.
    func subscribe(options: MediaJobOptions, interrupter: Interrupter, consumer: any LiveTagConsumer) -> any LiveSubscription

    /// A lane of the engine's shared file pool (docs/ARCHITECTURE.md §3), where a live job's file output writes: its
    /// work runs in order, on one of the pool's threads, instead of on a thread of its own.
    func fileLane() -> any FileWorkLane
}

/// Work of one file output, run in the order it was submitted, one piece at a time, off the caller's thread.
public protocol FileWorkLane: AnyObject, Sendable {
    /// Runs `work` after everything submitted before it has run; returns at once.
    func submit(_ work: @escaping @Sendable () -> Void)
}

/// A publish to one destination, fed by the engine's thread.
public protocol LivePublication: AnyObject, Sendable {
    /// Hands tags over in order; waits only while too many bytes are still on their way to the event loop.
    func send(_ tags: [FLVStreamTag])
    /// The output's counters now.
    var progress: OutputProgress { get }
    /// Ends the publish (politely) and waits until it is closed; returns the final counters.
    func finish() -> OutputProgress
}

/// A live input's tags, delivered on an event loop: implementations must not block.
public protocol LiveTagConsumer: AnyObject, Sendable {
    /// Tags of one read burst, timestamps already continuous across reconnects; `bytes` read from the network.
    func receive(_ tags: [FLVStreamTag], bytes: Int)
    /// The input ended: cleanly (`nil`, also on cancel) or with the reason. Called once.
    func end(_ error: MediaJobError?)
}

/// A running live input.
public protocol LiveSubscription: AnyObject, Sendable {
    /// Ends the input (the engine has what it needs, or failed); the consumer's `end` follows.
    func stop()
    /// Connections after the first (pull reconnects, publishers that came back).
    var reconnects: Int { get }
}
