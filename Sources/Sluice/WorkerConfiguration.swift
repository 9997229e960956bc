// docs/ARCHITECTURE.md §5: what a worker runs at once, class by class, and the rest of its settings.
import Foundation
import JobQueue
import NIOCore
import JobDocument
import MediaJob

/// What a worker needs besides its broker connection and store.
public struct WorkerConfiguration: Sendable {
    /// Recorded with every attempt; rows this id left `running` are reconciled at start.
    public var workerID: String
    /// Batch jobs (file input) run at once: the prefetch of `sluice.jobs.batch`. 0 takes none.
    public var batchSlots: Int
    /// Live jobs (RTMP pull or listen input) that encode no video, run at once: the prefetch of `sluice.jobs.live`.
    /// 0 takes none.
    public var liveSlots: Int
    /// The encode budget in 720p30-equivalents (`EncodeUnit`): live jobs that encode video run while the sum of
    /// their `encodeCost` fits in it (`SlotBook`). 0 takes none.
    public var encodeSlots: Int
    /// How long a class waits for room after a delivery that did not fit, before it looks at its queue again
    /// (sooner when a job of the class ends).
    public var admissionRelook: Duration
    /// The older name of `batchSlots` (`--concurrency`), from when every job shared one queue.
    public var concurrency: Int {
        get { batchSlots }
        set { batchSlots = newValue }
    }
    /// How long running jobs may go on after a shutdown request before they are interrupted and requeued.
    public var grace: Duration
    /// After the grace, how long interrupted jobs have to end and settle (hand-backs confirmed, leases released)
    /// before the broker connection is closed under them: a broker that is gone would hold a settlement forever.
    public var settleTimeout: Duration = .seconds(5)
    /// How long closing the broker connection may take (flushing acks, events and lease deletes) before the worker
    /// stops without waiting for it: a broker that stopped answering blocks librabbitmq's calls for its own timeouts.
    public var brokerCloseTimeout: Duration = .seconds(3)
    /// The longest a stop runs past the grace: the jobs settle, then the broker closes.
    public var stopOverrun: Duration { settleTimeout + brokerCloseTimeout }
    /// Where job paths may point (the worker always uses `.rooted`).
    public var paths: PathPolicy
    /// Delay before a transiently failed job is delivered again.
    public var retryBackoff: RetryBackoff
    /// Seconds between `job.progress` events of a running job.
    public var progressEventInterval: Double
    /// Seconds between progress rows written to the store.
    public var storeInterval: Double
    /// A temporary output file nobody has written for this long, held by no writer and of a job whose lease nobody
    /// holds, is removed by the worker's sweep (`StalePartSweep`).
    public var stalePartAge: Duration = StalePartSweep.defaultAge
    /// Where live HLS outputs publish their playlists (the HTTP server's `/hls/` routes); nil without `--http`.
    public var livePlaylists: LivePlaylistRegistry?

    /// Live slots when none are given: a relay engine relays hundreds of restreams on a few event-loop threads,
    /// and a restream costs little CPU (copy, no decode), so a worker takes many; batch jobs decode and encode.
    public static let defaultLiveSlots = 100

    /// The encode budget when none is given: one unit (a 720p30 x264 veryfast live encode) per core, counted as the
    /// relay engine counts its loops (a cgroup CPU limit or cpuset counts; a container without either sees the
    /// node's cores). One unit measured 0.41 of a core on a synthetic picture (`scripts/bench liveencode`) and takes
    /// more on camera content (noise, motion: up to ~0.7), so this keeps a worker's encodes to about half to two
    /// thirds of its cores and leaves the rest to the engine's loops, the copy restreams and the batch slot.
    public static var defaultEncodeSlots: Int { max(1, System.coreCount) }

    /// - Parameters:
    ///   - workerID: this worker's id.
    ///   - batchSlots: batch jobs at once (≥ 0).
    ///   - liveSlots: live jobs at once (≥ 0).
    ///   - encodeSlots: the encode budget in 720p30-equivalents (≥ 0; at least one of the three > 0).
    ///   - paths: the input and output roots.
    public init(workerID: String, batchSlots: Int = 1, liveSlots: Int = WorkerConfiguration.defaultLiveSlots,
                encodeSlots: Int = WorkerConfiguration.defaultEncodeSlots, paths: PathPolicy) {
        precondition(batchSlots >= 0 && liveSlots >= 0 && encodeSlots >= 0 && batchSlots + liveSlots + encodeSlots >= 1,
                     "a worker needs a slot")
        self.workerID = workerID
        self.batchSlots = batchSlots
        self.liveSlots = liveSlots
        self.encodeSlots = encodeSlots
        self.paths = paths
        admissionRelook = .seconds(15)
        grace = .seconds(30)
        retryBackoff = RetryBackoff(base: .seconds(5), cap: .seconds(300))
        progressEventInterval = 5
        storeInterval = 2
    }

    /// The older form: `concurrency` batch slots and the default live slots.
    public init(workerID: String, concurrency: Int, paths: PathPolicy) {
        self.init(workerID: workerID, batchSlots: concurrency, paths: paths)
    }

    /// The slots of one class (units for `encode`).
    public func slots(_ jobClass: JobClass) -> Int {
        switch jobClass {
        case .live: liveSlots
        case .batch: batchSlots
        case .encode: encodeSlots
        }
    }

    /// The class queues and their prefetch for `BrokerConfiguration.classPrefetch` (a class without slots is not
    /// consumed). An encode job costs at least one unit, so the encode budget bounds the jobs that can start too.
    public var classPrefetch: [JobClass: UInt16] {
        var prefetch: [JobClass: UInt16] = [:]
        for jobClass in JobClass.allCases where slots(jobClass) > 0 {
            prefetch[jobClass] = UInt16(clamping: slots(jobClass))
        }
        return prefetch
    }
}

extension JobSpec {
    /// Batch for a file input; for a network stream (an RTMP/RTMPS pull or listen), encode when it encodes video
    /// (`encodeCost` > 0), else live.
    public var jobClass: JobClass {
        guard input.isNetwork else { return .batch }
        return encodeCost > 0 ? .encode : .live
    }
}
