// Outputs on the fly (docs/ARCHITECTURE.md §8): the control messages that add an output to, or remove one from, a
// running job, and the answer the worker holding its lease sends back to the requester's queue.
import Foundation

/// `{"add_output": {"job": "cam42", "url": "rtmp://b.example/live/KEY"}, "reply_to": "amq.gen-…", "correlation_id": "…"}`
/// (or `remove_output`). `reply_to` names a queue (the default exchange routes to it) where the worker answers with an
/// `OutputEditReply` carrying the same `correlation_id`; both are optional (a fire-and-forget edit is still applied).
public struct OutputEditRequest: Sendable, Equatable {
    /// What the edit does.
    public enum Action: String, Sendable, Equatable, CaseIterable {
        case add = "add_output"
        case remove = "remove_output"
    }

    public var action: Action
    /// The running job's id.
    public var jobID: String
    /// The output's URL exactly as in the job (remove) or as it would be in the job (add). A secret: never logged.
    public var url: String
    /// The queue the answer goes to, if any.
    public var replyTo: String?
    /// Echoed in the answer, so a requester can match it.
    public var correlationID: String?

    /// Longest `reply_to` and `correlation_id` taken (AMQP short strings are 255 bytes).
    public static let maxReplyFieldBytes = 255

    /// Describes an edit.
    /// - Parameters:
    ///   - action: add or remove.
    ///   - jobID: the running job's id.
    ///   - url: the output URL.
    ///   - replyTo: the queue for the answer.
    ///   - correlationID: the text the answer echoes.
    public init(action: Action, jobID: String, url: String, replyTo: String? = nil, correlationID: String? = nil) {
        self.action = action
        self.jobID = jobID
        self.url = url
        self.replyTo = replyTo
        self.correlationID = correlationID
    }

    /// Reads a decoded control object; nil when it is not exactly one edit with a job id and a URL (strings).
    init?(object: [String: Any]) {
        let actions = Action.allCases.filter { object[$0.rawValue] != nil }
        guard actions.count == 1, let action = actions.first,
              let body = object[action.rawValue] as? [String: Any], body.count == 2,
              let jobID = body["job"] as? String, !jobID.isEmpty,
              let url = body["url"] as? String, !url.isEmpty
        else { return nil }
        let known: Set<String> = [action.rawValue, "reply_to", "correlation_id"]
        guard Set(object.keys).isSubset(of: known) else { return nil }
        func optionalText(_ key: String) -> String?? {
            guard let value = object[key] else { return .some(nil) }
            guard let text = value as? String, !text.isEmpty, text.utf8.count <= Self.maxReplyFieldBytes else { return nil }
            return .some(text)
        }
        guard let replyTo = optionalText("reply_to"), let correlationID = optionalText("correlation_id") else { return nil }
        self.init(action: action, jobID: jobID, url: url, replyTo: replyTo, correlationID: correlationID)
    }

    /// The JSON body of this request.
    public var json: [UInt8] {
        var object: [String: Any] = [action.rawValue: ["job": jobID, "url": url]]
        if let replyTo { object["reply_to"] = replyTo }
        if let correlationID { object["correlation_id"] = correlationID }
        // Strings only: JSONSerialization cannot fail on them.
        return Array((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data())
    }
}

/// The answer of the worker that holds the job: `{"correlation_id": "…", "ok": true, "output": 2, "message": "…"}`.
/// `message` is redacted (a stream key never appears); `output` is the output's index in the job, when it has one.
public struct OutputEditReply: Sendable, Equatable {
    public var correlationID: String?
    public var ok: Bool
    public var message: String
    public var output: Int?
    /// The worker that answered.
    public var workerID: String?

    /// Describes an answer.
    /// - Parameters:
    ///   - correlationID: the request's correlation id.
    ///   - ok: whether the edit was applied.
    ///   - message: what happened or why not (redacted).
    ///   - output: the output's index in the job.
    ///   - workerID: the worker that answered.
    public init(correlationID: String?, ok: Bool, message: String, output: Int? = nil, workerID: String? = nil) {
        self.correlationID = correlationID
        self.ok = ok
        self.message = message
        self.output = output
        self.workerID = workerID
    }

    /// Decodes an answer; nil when the body is not one.
    /// - Parameter json: the message body.
    public init?(json: [UInt8]) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json)) as? [String: Any],
              let ok = object["ok"] as? Bool, let message = object["message"] as? String
        else { return nil }
        let output = (object["output"] as? NSNumber).flatMap { Int(exactly: $0.doubleValue) }
        self.init(correlationID: object["correlation_id"] as? String, ok: ok, message: message, output: output,
                  workerID: object["worker"] as? String)
    }

    /// The JSON body of this answer.
    public var json: [UInt8] {
        var object: [String: Any] = ["ok": ok, "message": message]
        if let correlationID { object["correlation_id"] = correlationID }
        if let output { object["output"] = output }
        if let workerID { object["worker"] = workerID }
        return Array((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data())
    }
}
