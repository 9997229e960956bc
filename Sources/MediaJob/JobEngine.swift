// The one way a job's media runs (docs/ARCHITECTURE.md §2): the runner asks an engine to start it and hears of it
// through `JobCallbacks`, whichever engine it is.

/// Something that runs a job's media: LiveRelay's relay engine (live copy jobs, on its event loops) or MediaEngine's
/// codec engine (files, encodes and ladders, each job on a thread of its own). `start` never blocks.
public protocol JobEngine: AnyObject, Sendable {
    /// Whether this engine runs these options.
    func runs(_ options: MediaJobOptions) -> Bool
    /// Starts a job and returns at once; see `JobCallbacks` for what is called back, where and how often.
    func start(_ options: MediaJobOptions, interrupter: Interrupter, callbacks: JobCallbacks)
}

/// What a running job tells the one who started it. Callbacks may come on an event loop or a job's input thread,
/// where the receiver must not block for long; `completion` comes exactly once, after every `progress`.
public struct JobCallbacks: Sendable {
    /// About every half second to a second, one snapshot at a time.
    public var progress: @Sendable (MediaJobProgress) -> Void
    /// Once the video encoder is open, with the encoder it got (jobs that encode).
    public var encoderSelected: @Sendable (EncoderSelection) -> Void
    /// Asked at most once, when the job stopped on a cancel: true discards every file output instead of keeping
    /// what was written (a worker shutting down requeues the job, so a partial file must not look finished).
    public var discardsOutputsOnCancel: @Sendable () -> Bool
    /// A segmented recording opened, closed or removed a segment (on the output's thread, in order, before `completion`).
    public var segment: @Sendable (SegmentReport) -> Void
    /// How the job ended.
    public var completion: @Sendable (Result<MediaJobResult, any Error>) -> Void

    public init(progress: @escaping @Sendable (MediaJobProgress) -> Void = { _ in },
                encoderSelected: @escaping @Sendable (EncoderSelection) -> Void = { _ in },
                discardsOutputsOnCancel: @escaping @Sendable () -> Bool = { false },
                segment: @escaping @Sendable (SegmentReport) -> Void = { _ in },
                completion: @escaping @Sendable (Result<MediaJobResult, any Error>) -> Void) {
        self.progress = progress
        self.encoderSelected = encoderSelected
        self.discardsOutputsOnCancel = discardsOutputsOnCancel
        self.segment = segment
        self.completion = completion
    }
}
