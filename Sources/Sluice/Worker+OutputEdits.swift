// Outputs on the fly (docs/ARCHITECTURE.md §4, §5): an output edit from `sluice.control` for a job this worker holds:
// validated against the job as it runs now, applied by the relay engine, recorded (row, edited spec, event), carried
// by the lease's claims and by any retry or hand-over, and answered on the requester's queue. Workers that do not
// hold the job stay silent: the holder answers, or the requester learns that nobody holds it.
import Foundation
import JobQueue
import JobStore
import LiveRelay
import MediaEngine
import MediaJob
import JobDocument
import NIOConcurrencyHelpers
import NamedThreads

/// What the worker needs of a relay engine to edit a running job's outputs (LiveRelay's `RelayEngine`).
public protocol LiveOutputEditing: AnyObject, Sendable {
    /// Whether the job started with `interrupter` runs on the engine's relay, where outputs can be edited.
    func editsOutputs(ofJobWith interrupter: Interrupter) -> Bool
    /// Adds an RTMP output with index `index` (the number of outputs the attempt has had) to that job.
    func addOutput(_ output: OutputDescription, index: Int, toJobWith interrupter: Interrupter) async -> Result<Void, OutputEditRefusal>
    /// Removes the RTMP output `index` from that job, closing it cleanly.
    func removeOutput(index: Int, fromJobWith interrupter: Interrupter) async -> Result<Void, OutputEditRefusal>
}

extension RelayEngine: LiveOutputEditing {}

extension Worker {
    /// From the control consumer: edits run on a thread of their own (they wait for the store and the engine).
    func requestedOutputEdit(_ request: OutputEditRequest) {
        // A copy of the job that is only waiting for (or was refused) the lease is not this worker's to answer for.
        guard let job = lock.withLock({ active[request.jobID] }), job.holdsLease else {
            log("output edit for a job not running here: left to the worker that holds it", job: request.jobID)
            return
        }
        startNamedThread("sluice-edit") { [self] in
            let reply = applyOutputEdit(request, to: job)
            log(reply.message, job: request.jobID, level: reply.ok ? .info : .warning)
            if let queue = request.replyTo { broker.publishReply(to: queue, reply) }
        }
    }

    /// Applies one edit to a job running here; the answer is redacted.
    func applyOutputEdit(_ request: OutputEditRequest, to job: ActiveJob) -> OutputEditReply {
        job.editLock.lock()
        defer { job.editLock.unlock() }
        let id = request.jobID
        func refused(_ reason: String) -> OutputEditReply {
            OutputEditReply(correlationID: request.correlationID, ok: false, message: "job \(id): \(reason)",
                            workerID: configuration.workerID)
        }
        guard let engine = relayEngine as? any LiveOutputEditing, engine.editsOutputs(ofJobWith: job.interrupter) else {
            return refused("outputs cannot be changed while it runs: only live copy jobs on the live relay take output "
                           + "edits, and this one runs in the codec stage (encode, renditions or a file input) "
                           + "or has not started yet")
        }
        let (current, slots) = job.editable
        let edit = OutputEdit(action: request.action == .add ? .add : .remove, url: request.url)
        let applied: OutputEdit.Applied
        do {
            applied = try edit.apply(to: current, slots: slots)
        } catch {
            return refused(error.description)
        }
        let plan: JobPlan
        do {
            plan = try JobPlan(spec: applied.spec, paths: runner.paths)
        } catch {
            return refused("the edited job cannot run: " + Redaction.scrub("\(error)", urls: [request.url]))
        }
        guard JobRunner.runsOnRelay(plan.options, relay: relayEngine) else {
            return refused("\(Redaction.redact(url: request.url)) is not an RTMP destination the live relay can publish to (rtmp://HOST[:PORT]/APP/KEY)")
        }
        let body = Array(applied.document.jsonText().utf8)
        let shown = Redaction.redact(url: request.url)
        let index = applied.index
        let message: String
        let committed: CommittedTransition
        switch edit.action {
        case .add:
            guard let output = plan.options.outputs.last else { return refused("the edited job has no outputs") }
            message = "output \(index) added: \(shown)"
            runner.editedURLs.add(request.url, jobID: id)
            // The row first: the session reports the new output's progress from its first snapshot on.
            do {
                committed = try store.recordOutputAdded(
                    jobID: id, index: index, output: NewOutput(url: shown, format: (output.kind == .mpegts ? OutputFormat.mpegts : .flv).rawValue),
                    spec: applied.document.jsonText(), specRedacted: applied.spec.redactedDocument.jsonText(), message: message)
            } catch {
                return refused("the output was not added: the job store failed: \(error)")
            }
            let added = blockingValue { await engine.addOutput(output, index: index, toJobWith: job.interrupter) }
            if case let .failure(refusal) = added {
                try? store.updateOutput(jobID: id, index: index, update: OutputUpdate(state: .failed, lastError: "not added: \(refusal)"))
                return refused("the output was not added: \(refusal)")
            }
        case .remove:
            message = "output \(index) removed: \(shown)"
            let removed = blockingValue { await engine.removeOutput(index: index, fromJobWith: job.interrupter) }
            if case let .failure(refusal) = removed { return refused("the output was not removed: \(refusal)") }
            do {
                committed = try store.recordOutputRemoved(
                    jobID: id, index: index, url: shown, spec: applied.document.jsonText(),
                    specRedacted: applied.spec.redactedDocument.jsonText(), message: message)
            } catch {
                log("the output was removed but the job store failed: \(error)", job: id, level: .warning)
                job.edited(body: body, spec: applied.spec, slots: applied.slots)
                broker.replaceLeaseBody(jobID: id, body: body)
                return OutputEditReply(correlationID: request.correlationID, ok: true, message: "job \(id): \(message) (not recorded: \(error))",
                                       output: index, workerID: configuration.workerID)
            }
        }
        // From here on the claims, a retry and a hand-over carry the edited job.
        job.edited(body: body, spec: applied.spec, slots: applied.slots)
        broker.replaceLeaseBody(jobID: id, body: body)
        events.transitioned(committed.job, event: committed.event, kind: committed.event.kind.rawValue, message: message)
        return OutputEditReply(correlationID: request.correlationID, ok: true, message: "job \(id): \(message)",
                               output: index, workerID: configuration.workerID)
    }
}

/// The URLs added to each running job by output edits (secrets the job's own spec does not list).
final class EditedOutputURLs: Sendable {
    private let urls = NIOLockedValueBox<[String: [String]]>([:])

    func add(_ url: String, jobID: String) { urls.withLockedValue { $0[jobID, default: []].append(url) } }

    func urls(of jobID: String) -> [String] { urls.withLockedValue { $0[jobID] ?? [] } }

    func forget(jobID: String) { urls.withLockedValue { $0[jobID] = nil } }
}
