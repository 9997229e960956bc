import Foundation

/// A message on the `sluice.control` fanout (docs/ARCHITECTURE.md §8): `{"cancel": "<job id>"}`, or an output edit
/// (`{"add_output": {"job": "<id>", "url": "<url>"}, "reply_to": "<queue>", "correlation_id": "<text>"}`, and the
/// same with `remove_output`; see `OutputEditRequest`).
public enum ControlMessage: Sendable, Equatable {
    /// Stop the job with this id (running here, or remember it if still queued).
    case cancel(jobID: String)
    /// Add an output to, or remove one from, a running job; only the worker holding its lease acts and answers.
    case editOutputs(OutputEditRequest)

    /// Decodes a control message; nil for anything else (unknown messages are ignored, not fatal).
    /// - Parameter json: the message body.
    public init?(json: [UInt8]) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json)) as? [String: Any] else { return nil }
        if object.count == 1, let id = object["cancel"] as? String, !id.isEmpty {
            self = .cancel(jobID: id)
            return
        }
        guard let request = OutputEditRequest(object: object) else { return nil }
        self = .editOutputs(request)
    }

    /// The JSON body of this message.
    public var json: [UInt8] {
        switch self {
        case let .cancel(jobID):
            // JSONSerialization escapes the id properly; a one-key dictionary of strings cannot fail to encode.
            let data = (try? JSONSerialization.data(withJSONObject: ["cancel": jobID])) ?? Data()
            return Array(data)
        case let .editOutputs(request):
            return request.json
        }
    }
}
