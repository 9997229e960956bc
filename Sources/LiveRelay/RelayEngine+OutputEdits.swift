// Outputs on the fly (docs/ARCHITECTURE.md §4): the engine's door for output edits. Jobs started by `start` (live copy
// jobs) are found by the interrupter they were started with; the edit runs on the session's event loop.
import Foundation
import JobDocument
import MediaJob
import NIOCore
import NIOConcurrencyHelpers

/// The running sessions that take output edits, by their job's interrupter (which the session keeps alive, so the
/// identifier is not reused while it is listed). A run that ended before it was listed leaves a mark instead. Sessions
/// of different event loops end at the same time, so the entries are locked.
final class EditableRuns: Sendable {
    private enum Entry {
        case running(RelaySession)
        case ended
    }
    private let entries = NIOLockedValueBox<[ObjectIdentifier: Entry]>([:])

    func started(_ key: ObjectIdentifier, _ session: RelaySession) {
        entries.withLockedValue { entries in
            if case .ended? = entries[key] {
                entries[key] = nil
            } else {
                entries[key] = .running(session)
            }
        }
    }

    func ended(_ key: ObjectIdentifier) {
        entries.withLockedValue { entries in
            if case .running? = entries[key] {
                entries[key] = nil
            } else {
                entries[key] = .ended
            }
        }
    }

    func session(_ key: ObjectIdentifier) -> RelaySession? {
        entries.withLockedValue { entries in
            guard case let .running(session)? = entries[key] else { return nil }
            return session
        }
    }
}

extension RelayEngine {
    /// Whether the job started with `interrupter` runs here on the engine's relay, where outputs can be edited.
    /// - Parameter interrupter: the interrupter the job was started with.
    public func editsOutputs(ofJobWith interrupter: Interrupter) -> Bool {
        editableRuns.session(ObjectIdentifier(interrupter)) != nil
    }

    /// Adds an RTMP or SRT output to the running job started with `interrupter`: it connects and starts at the current
    /// group of pictures (or the next keyframe) with the sequence headers, like a destination that connects late.
    /// - Parameters:
    ///   - output: the output (an `rtmp://` or `rtmps://` target of FLV, or an `srt://` one of MPEG-TS; its name is redacted).
    ///   - index: the index it takes in the job: the number of outputs the job has had so far.
    ///   - interrupter: the interrupter the job was started with.
    public func addOutput(_ output: OutputDescription, index: Int, toJobWith interrupter: Interrupter) async -> Result<Void, OutputEditRefusal> {
        guard case let .network(url) = output.target else {
            return .failure(OutputEditRefusal("only rtmp://, rtmps:// and srt:// outputs can be added to a running job"))
        }
        let endpoint = output.kind == .flv ? RTMPEndpoint(parsing: url) : nil
        let srt = output.kind == .mpegts ? try? SRTURL(parsing: url) : nil
        guard endpoint != nil || srt != nil else {
            return .failure(OutputEditRefusal("only rtmp://, rtmps:// and srt:// outputs can be added to a running job"))
        }
        guard let session = editableRuns.session(ObjectIdentifier(interrupter)) else {
            return .failure(OutputEditRefusal("the job is not running on this worker's relay engine"))
        }
        return await withCheckedContinuation { continuation in
            session.loop.execute {
                let added = endpoint.map { session.addOutput(index: index, name: output.name, endpoint: $0) }
                    ?? srt.map { session.addOutput(index: index, name: output.name, srt: $0) }
                    ?? .failure(OutputEditRefusal("only rtmp://, rtmps:// and srt:// outputs can be added to a running job"))
                continuation.resume(returning: added)
            }
        }
    }

    /// Removes the RTMP or SRT output `index` from the running job started with `interrupter`: flushed and closed politely.
    /// - Parameters:
    ///   - index: the output's index in the job.
    ///   - interrupter: the interrupter the job was started with.
    public func removeOutput(index: Int, fromJobWith interrupter: Interrupter) async -> Result<Void, OutputEditRefusal> {
        guard let session = editableRuns.session(ObjectIdentifier(interrupter)) else {
            return .failure(OutputEditRefusal("the job is not running on this worker's relay engine"))
        }
        return await withCheckedContinuation { continuation in
            session.loop.execute {
                continuation.resume(returning: session.removeOutput(index: index))
            }
        }
    }
}
