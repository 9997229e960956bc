// docs/ARCHITECTURE.md §8: the JSON events on `sluice.events`, routing key `job.<state>` (and `job.progress`).
import Foundation
import JobStore
import MediaEngine
import MediaJob
import JobDocument

/// One event for upstream services: `{event, event_id, id, state, attempt, worker, at, input?, error?, message?,
/// outputs: [...]}` (`event` repeats the routing key, so a consumer reading a queue still tells `job.duplicate` from
/// `job.succeeded`). `event_id` is unique for ever (`<worker>/<UUID>`, stored with the event's row by the write that
/// recorded it), so a consumer such as `sluice ledger` can apply each event once however often it is delivered.
/// Consumers must still accept the older `<worker>/<row id>` ids of events published before.
/// Built only from the store's records (URLs already redacted) or from redacted output names.
public struct JobEvent: Sendable, Equatable {
    /// The routing key: `job.<state>`, `job.duplicate` or `job.progress`.
    public var kind: String
    /// The event's unique id (`event_id` in the body).
    public var eventID: String
    public var body: JSONValue

    /// The event of a state the job just entered, from its committed record.
    /// - Parameters:
    ///   - job: the job after the transition.
    ///   - outputs: its outputs (redacted URLs).
    ///   - kind: the routing key; defaults to `job.<state>`.
    ///   - message: a sentence for humans, when there is more to say than the error.
    ///   - eventID: the event's unique id; nil makes one from the worker and a random UUID.
    ///   - at: the event time.
    ///   - data: the stored event's details (`output.segment_closed`'s segment), as `data`.
    public init(job: JobRecord, outputs: [OutputRecord], kind: String? = nil, message: String? = nil,
                eventID: String? = nil, at: Date = Date(), data: JSONValue? = nil) {
        self.kind = kind ?? "job.\(job.state.rawValue)"
        self.eventID = eventID ?? Self.randomID(worker: job.workerID)
        var fields: [String: JSONValue] = [
            "event": .string(self.kind),
            "event_id": .string(self.eventID),
            "id": .string(job.id),
            "state": .string(job.state.rawValue),
            "attempt": .number(Double(job.attempts)),
            "worker": job.workerID.map(JSONValue.string) ?? .null,
            "at": .string(JobsFormatting.iso(at)),
            "outputs": .array(outputs.map { output in
                .object([
                    "index": .number(Double(output.index)),
                    "url": .string(output.url),
                    "state": .string(output.state.rawValue),
                    "bytes": .number(Double(output.bytes)),
                    "frames": .number(Double(output.frames)),
                    "reconnects": .number(Double(output.reconnects)),
                ])
            }),
        ]
        if let input = job.input { fields["input"] = .string(input) }
        if let error = job.error { fields["error"] = .string(error) }
        if let message { fields["message"] = .string(message) }
        if let data { fields["data"] = data }
        body = .object(fields)
    }

    /// A `job.progress` event from a running attempt's snapshot.
    /// - Parameters:
    ///   - spec: the job (its output URLs are redacted here).
    ///   - attempt: the attempt number.
    ///   - workerID: this worker.
    ///   - progress: the job's progress snapshot.
    ///   - at: the event time.
    ///   - outputURLs: the attempt's outputs by index when output edits changed them (`OutputSlots`; nil: the spec's).
    public init(progressOf spec: JobSpec, attempt: Int, workerID: String, progress: MediaJobProgress, at: Date = Date(),
                outputURLs: [String]? = nil) {
        let urls = outputURLs ?? spec.outputs.map(\.url)
        let outputs: [JSONValue] = progress.outputs.enumerated().map { index, output in
            let url: String? = urls.indices.contains(index) ? urls[index] : nil
            return .object([
                "index": .number(Double(index)),
                "url": .string(url.map { Redaction.redact(url: $0) } ?? ""),
                "state": .string(JobEvent.progressState(of: output).rawValue),
                "bytes": .number(Double(output.bytes)),
                "frames": .number(Double(output.videoFrames)),
            ])
        }
        kind = "job.progress"
        eventID = Self.randomID(worker: workerID)
        body = .object([
            "event": .string(kind),
            "event_id": .string(eventID),
            "id": .string(spec.id),
            "state": .string(JobState.running.rawValue),
            "attempt": .number(Double(attempt)),
            "worker": .string(workerID),
            "at": .string(JobsFormatting.iso(at)),
            "media_time_s": .number((progress.mediaTime * 1000).rounded() / 1000),
            "frames": .number(Double(progress.videoFrames)),
            "bytes_in": .number(Double(progress.bytesIn)),
            "bytes_out": .number(Double(progress.bytesOut)),
            "speed": .number((progress.speed * 100).rounded() / 100),
            "outputs": .array(outputs),
        ])
    }

    /// The JSON body as bytes.
    public var json: [UInt8] { Array(body.jsonText().utf8) }

    /// An id for an event without a stored row (progress), unique without coordination.
    static func randomID(worker: String?) -> String {
        EventRecord.newID(worker: worker)
    }
}

extension JobEvent {
    /// An output's state in a progress event: failed, removed by an output edit, or running.
    static func progressState(of output: OutputProgress) -> OutputState {
        if output.failed { return .failed }
        return output.status == .removed ? .removed : .running
    }
}
