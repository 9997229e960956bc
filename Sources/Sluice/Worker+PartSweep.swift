// docs/ARCHITECTURE.md §7: the worker sweeps its output root for temporary files nobody will come back for, at start
// and every `StalePartSweep.interval`. The periodic task is a child of `run`; each sweep runs on a thread of its own,
// because it walks folders and may ask the broker on a blocking connection.
import Foundation
import JobDocument
import JobQueue
import JobStore
import NamedThreads

extension Worker {
    /// Sweeps now and then every `StalePartSweep.interval` until the task is cancelled.
    func sweepStalePartsPeriodically() async {
        while !Task.isCancelled {
            await sweepStaleParts()
            do { try await Task.sleep(for: StalePartSweep.interval) } catch { return }
        }
    }

    /// One sweep of the output root (see `StalePartSweep`), logged when it removed or kept anything.
    func sweepStaleParts() async {
        guard case let .rooted(_, outputRoot) = configuration.paths else { return }
        let root = PathPolicy.resolvedRoot(outputRoot)
        let (store, broker, log, age) = (store, broker, log, configuration.stalePartAge)
        let outcome: StalePartSweep.Outcome = await withCheckedContinuation { done in
            startNamedThread("sluice-sweep") {
                let known: [String]
                do { known = try store.jobIDs() } catch {
                    log("cannot read the job ids for the sweep of stale temporary files: \(error)")
                    known = []
                }
                done.resume(returning: StalePartSweep.sweep(root: root, olderThan: age, knownJobs: known) { jobIDs in
                    try broker.heldLeases(of: jobIDs)
                })
            }
        }
        if !outcome.removed.isEmpty {
            log("removed \(outcome.removed.count) stale temporary file\(outcome.removed.count == 1 ? "" : "s") nobody writes: "
                + outcome.removed.joined(separator: ", "))
        }
        if !outcome.kept.isEmpty {
            log("kept \(outcome.kept.count) stale temporary file\(outcome.kept.count == 1 ? "" : "s") whose job's lease is held or could not be checked: "
                + outcome.kept.joined(separator: ", "))
        }
    }
}
