// docs/ARCHITECTURE.md §6 and §7: what an attempt's outputs say in the store: their row states, the error that names
// one, and the outputs a job that succeeded lost on the way.
import Foundation
import JobStore
import MediaEngine
import MediaJob
import JobDocument

extension JobRunner {
    /// What a failed attempt says of output `index` (redacted): the error that named it, or why every output gave up.
    static func outputError(_ error: any Error, index: Int, spec: JobSpec) -> String? {
        guard let error = error as? MediaJobError else { return nil }
        switch error {
        case let .output(failed, _, _), let .openOutput(failed, _, _):
            return failed == index ? Redaction.scrub("\(error)", urls: spec.secretURLs) : nil
        case let .allOutputsFailed(_, lastError?):
            return spec.outputs[index].isNetwork ? Redaction.scrub(lastError, urls: spec.secretURLs) : nil
        default:
            return nil
        }
    }

    /// An output's row state: a failure (an RTMP output that gave up) outlives the job's own ending.
    static func state(of output: OutputProgress, final: OutputState?) -> OutputState {
        if output.failed { return .failed }
        // An output edit removed it: its row keeps saying so, whatever the job's end.
        if output.status == .removed { return .removed }
        if let final { return final }
        switch output.status {
        case .connecting: return .pending
        case .reconnecting: return .reconnecting
        case .running, .finished: return .running
        case .failed: return .failed
        case .removed: return .removed
        }
    }

    /// RTMP outputs that gave up (or were still down at the end), for the summary of a job that succeeded without them.
    static func lostOutputs(_ progress: MediaJobProgress, spec: JobSpec) -> String? {
        let lost = progress.outputs.enumerated().filter { $0.element.failed }
        guard !lost.isEmpty else { return nil }
        return lost.map { index, output in
            let name = index < spec.outputs.count ? spec.outputs[index].redactedURL : "output \(index)"
            let cause = output.lastError.map { ": " + Redaction.scrub($0, urls: spec.secretURLs) } ?? ""
            return "output \(index) (\(name)) failed after \(output.reconnects) reconnect attempts\(cause)"
        }.joined(separator: "; ")
    }
}
