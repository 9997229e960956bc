// docs/ARCHITECTURE.md §5: a failure is permanent (dead-letter now) or transient (retry queue until max_attempts).
import Foundation
import MediaEngine
import MediaJob
import JobDocument

/// Why an attempt failed, redacted, and whether trying again later could help.
public struct JobFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The failure text stored in `jobs.error` and sent in events (secrets already removed).
    public var message: String
    /// True when the cause lies outside the job (an unreachable input, a refused RTMP destination):
    /// the same job may succeed later. False for what no retry can change (bad spec, bad media, paths).
    public var isTransient: Bool

    public var description: String { message }

    /// - Parameters:
    ///   - message: the redacted failure text.
    ///   - isTransient: whether a later attempt may succeed.
    public init(message: String, isTransient: Bool) {
        self.message = message
        self.isTransient = isTransient
    }

    /// Classifies an error thrown while planning or running `spec`, and scrubs its secrets.
    ///
    /// Only the network is transient: a file that cannot be opened or parsed, a codec copy mode cannot carry,
    /// or a path outside the roots fails the same way every time.
    /// - Parameters:
    ///   - error: a `JobPlan.PlanError`, a `MediaJobError`, or anything else the job threw (permanent).
    ///   - spec: the job, which says which input and outputs are network URLs.
    public init(classifying error: any Error, spec: JobSpec) {
        message = Redaction.scrub("\(error)", urls: spec.secretURLs)
        isTransient = JobFailure.isTransient(error, spec: spec)
    }

    static func isTransient(_ error: any Error, spec: JobSpec) -> Bool {
        if error is JobPlan.PlanError { return false }
        guard let error = error as? MediaJobError else { return false }
        switch error {
        case .openInput, .readInput, .inputTimedOut, .inputLost:
            return spec.input.isNetwork
        case let .openOutput(index, _, _), let .output(index, _, _):
            return spec.outputs.indices.contains(index) && spec.outputs[index].isNetwork
        case .allOutputsFailed:
            // Destinations that refused or could not be reached may take the job on a later attempt.
            return true
        default:
            // No usable stream, a codec copy mode cannot carry, malformed media: the same every time.
            return false
        }
    }
}
