// docs/ARCHITECTURE.md §7: the worker's sweep of temporary output files whose writers are gone for good (a poison
// job, a worker or `sluice run` killed with -9, a job id never delivered again), safe on a shared output root.
import Foundation
import MediaEngine
import MediaJob

/// One sweep of an output root: a part is removed when nobody has written it for `olderThan`, no writer holds it
/// open (writers hold a lock on their parts), and its job's lease is held by nobody. A part whose job this worker
/// does not know (another worker ran it, or an earlier database) has no lease to ask for: its age and the lock
/// decide, because a writer touches its part with every write and holds it locked while it runs.
public enum StalePartSweep {
    /// Parts untouched this long are candidates: far longer than any writer goes without a write, or a reconnect.
    public static let defaultAge: Duration = .seconds(86_400)
    /// How often a worker sweeps, after the sweep at its start.
    public static let interval: Duration = .seconds(600)

    /// What a sweep did.
    public struct Outcome: Sendable, Equatable {
        /// The parts removed (paths under the root).
        public var removed: [String] = []
        /// Stale parts kept because their job's lease is held, or the broker could not be asked.
        public var kept: [String] = []

        public init() {}
    }

    /// Sweeps `root` once.
    /// - Parameters:
    ///   - root: the worker's output root.
    ///   - age: how long a part must have gone unwritten.
    ///   - knownJobs: the job ids this worker knows (its database), to name the owner of a part by its tag.
    ///   - heldLeases: asks the broker which of these jobs' leases somebody holds; throws when it cannot be asked.
    ///   - now: the wall clock.
    public static func sweep(root: String, olderThan age: Duration, knownJobs: [String],
                             heldLeases: ([String]) throws -> Set<String>, now: Date = Date()) -> Outcome {
        let seconds = Double(age.components.seconds) + Double(age.components.attoseconds) / 1e18
        let parts = PartSweep.staleParts(under: root, olderThan: seconds, now: now)
        var outcome = Outcome()
        guard !parts.isEmpty else { return outcome }
        let tags = Set(parts.compactMap { $0.owner?.tag })
        var jobOfTag: [String: String] = [:]
        for jobID in knownJobs {
            let tag = PartOwner(jobID: jobID).tag
            if tags.contains(tag) { jobOfTag[tag] = jobID }
        }
        // Not asked at all when no part's job is known; nil (keep them all) when the broker cannot be asked.
        let held: Set<String>? = jobOfTag.isEmpty ? [] : try? heldLeases(Set(jobOfTag.values).sorted())
        for part in parts {
            let path = part.path(under: root)
            if let jobID = part.owner.flatMap({ jobOfTag[$0.tag] }), held?.contains(jobID) ?? true {
                outcome.kept.append(path)
            } else if PartSweep.remove(part, under: root, olderThan: seconds, now: now) {
                outcome.removed.append(path)
            }
        }
        return outcome
    }
}
