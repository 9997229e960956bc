import Foundation

/// A message on the `sluice.control` fanout (DESIGN §5): `{"cancel": "<job id>"}`.
public enum ControlMessage: Sendable, Equatable {
    /// Stop the job with this id (running here, or remember it if still queued).
    case cancel(jobID: String)

    /// Decodes a control message; nil for anything else (unknown messages are ignored, not fatal).
    /// - Parameter json: the message body.
    public init?(json: [UInt8]) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json)) as? [String: Any],
              object.count == 1, let id = object["cancel"] as? String, !id.isEmpty
        else { return nil }
        self = .cancel(jobID: id)
    }

    /// The JSON body of this message.
    public var json: [UInt8] {
        switch self {
        case let .cancel(jobID):
            // JSONSerialization escapes the id properly; a one-key dictionary of strings cannot fail to encode.
            let data = (try? JSONSerialization.data(withJSONObject: ["cancel": jobID])) ?? Data()
            return Array(data)
        }
    }
}
