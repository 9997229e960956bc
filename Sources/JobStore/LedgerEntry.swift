// docs/ARCHITECTURE.md §8: one `sluice.events` message as the ledger applies it to its database.
import Foundation

/// A job event from any worker, parsed (by the Sluice module) from the JSON on `sluice.events`.
public struct LedgerEntry: Equatable, Sendable {
    /// Unique per event; applying the same id twice changes nothing.
    public var eventID: String
    /// The routing key: `job.<state>`, `job.progress`, `job.duplicate`, `job.takeover`, …
    public var kind: String
    /// The job's id.
    public var jobID: String
    /// The job's state when the event was published.
    public var state: JobState
    /// The attempt number.
    public var attempt: Int
    /// The worker that published it.
    public var workerID: String?
    /// When it happened, by the publishing worker's clock.
    public var at: Date
    /// The redacted input URL, when the event carries it.
    public var input: String?
    /// The job's error.
    public var error: String?
    /// A sentence for humans.
    public var message: String?
    /// The job's outputs, as the worker knew them.
    public var outputs: [LedgerOutput]
    /// For `job.progress`: where the attempt is.
    public var progress: LedgerProgress?

    /// Describes one event.
    /// - Parameters:
    ///   - eventID: the unique event id.
    ///   - kind: the routing key.
    ///   - jobID: the job.
    ///   - state: the job's state.
    ///   - attempt: the attempt number.
    ///   - workerID: the publishing worker.
    ///   - at: the event time.
    ///   - input: the redacted input URL.
    ///   - error: the job's error.
    ///   - message: a sentence for humans.
    ///   - outputs: the outputs.
    ///   - progress: progress figures of a `job.progress` event.
    public init(eventID: String, kind: String, jobID: String, state: JobState, attempt: Int, workerID: String?,
                at: Date, input: String? = nil, error: String? = nil, message: String? = nil,
                outputs: [LedgerOutput] = [], progress: LedgerProgress? = nil) {
        self.eventID = eventID
        self.kind = kind
        self.jobID = jobID
        self.state = state
        self.attempt = attempt
        self.workerID = workerID
        self.at = at
        self.input = input
        self.error = error
        self.message = message
        self.outputs = outputs
        self.progress = progress
    }
}

/// One output as an event reports it.
public struct LedgerOutput: Equatable, Sendable {
    /// Position in the spec, from 0.
    public var index: Int
    /// The redacted destination.
    public var url: String
    /// The output's state.
    public var state: OutputState
    /// Bytes written.
    public var bytes: Int64
    /// Frames written.
    public var frames: Int
    /// RTMP reconnections.
    public var reconnects: Int

    /// Describes one output.
    /// - Parameters:
    ///   - index: position in the spec.
    ///   - url: the redacted destination.
    ///   - state: its state.
    ///   - bytes: bytes written.
    ///   - frames: frames written.
    ///   - reconnects: RTMP reconnections.
    public init(index: Int, url: String, state: OutputState, bytes: Int64, frames: Int, reconnects: Int) {
        self.index = index
        self.url = url
        self.state = state
        self.bytes = bytes
        self.frames = frames
        self.reconnects = reconnects
    }
}

/// The figures of a `job.progress` event.
public struct LedgerProgress: Equatable, Sendable {
    /// Input media time processed, in seconds.
    public var mediaTimeSeconds: Double
    /// Video frames processed.
    public var frames: Int
    /// Bytes read.
    public var bytesIn: Int64
    /// Bytes written.
    public var bytesOut: Int64
    /// Speed relative to real time.
    public var speed: Double

    /// Describes a progress report.
    /// - Parameters:
    ///   - mediaTimeSeconds: media time processed.
    ///   - frames: video frames processed.
    ///   - bytesIn: bytes read.
    ///   - bytesOut: bytes written.
    ///   - speed: speed relative to real time.
    public init(mediaTimeSeconds: Double, frames: Int, bytesIn: Int64, bytesOut: Int64, speed: Double) {
        self.mediaTimeSeconds = mediaTimeSeconds
        self.frames = frames
        self.bytesIn = bytesIn
        self.bytesOut = bytesOut
        self.speed = speed
    }
}

/// What applying an event did.
public enum LedgerOutcome: Equatable, Sendable {
    /// The event was new and is recorded.
    case applied
    /// An event with this id was applied before; nothing changed.
    case duplicate
}
