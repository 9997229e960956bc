// docs/ARCHITECTURE.md §2 (step 3) and §6: what the worker records when a job message arrives.

/// A job as the worker received it, with secrets already redacted where noted.
public struct NewJob: Equatable, Sendable {
    /// The spec's id (the idempotency key).
    public var id: String
    /// The spec JSON as submitted; kept so that `jobs retry` can run it again: in clear when it equals
    /// `specRedacted`, sealed when it holds secrets and a key is configured, and not at all otherwise.
    public var spec: String
    /// The spec JSON with stream keys and credentials removed.
    public var specRedacted: String
    /// The input URL, redacted.
    public var input: String
    /// The outputs in spec order; their URLs redacted.
    public var outputs: [NewOutput]
    /// Queue priority (0…9), if the spec gives one.
    public var priority: Int?
    /// Attempts allowed for transient failures, if limited.
    public var maxAttempts: Int?
    /// The worker that received the job.
    public var workerID: String?

    /// Describes a received job.
    /// - Parameters:
    ///   - id: the spec's id.
    ///   - spec: the spec JSON as submitted.
    ///   - specRedacted: the spec JSON without secrets.
    ///   - input: the redacted input URL.
    ///   - outputs: the outputs in spec order, URLs redacted.
    ///   - priority: queue priority, if any.
    ///   - maxAttempts: attempts allowed, if limited.
    ///   - workerID: the receiving worker.
    public init(
        id: String, spec: String, specRedacted: String, input: String, outputs: [NewOutput],
        priority: Int? = nil, maxAttempts: Int? = nil, workerID: String? = nil
    ) {
        self.id = id
        self.spec = spec
        self.specRedacted = specRedacted
        self.input = input
        self.outputs = outputs
        self.priority = priority
        self.maxAttempts = maxAttempts
        self.workerID = workerID
    }
}

/// One output of a received job.
public struct NewOutput: Equatable, Sendable {
    /// The destination, redacted.
    public var url: String
    /// `flv`, `adts` or `annexb`, as resolved from the spec.
    public var format: String?

    /// Describes one output.
    /// - Parameters:
    ///   - url: the redacted destination.
    ///   - format: the container format, if resolved.
    public init(url: String, format: String? = nil) {
        self.url = url
        self.format = format
    }
}

/// What `JobStore.receive` found, so the worker knows whether to run the job.
public enum ReceiveOutcome: Equatable, Sendable {
    /// A new job, now in `received`.
    case created
    /// The id already succeeded: do not run it again, just ack.
    case alreadySucceeded(JobRecord)
    /// The id is known and has not succeeded (a redelivery, a retry, a re-run); the record is as it is now.
    case existing(JobRecord)
}
