// The worker's Prometheus metrics, recorded through swift-metrics where the worker already reports
// (transitions, progress snapshots, output rows); the exposition format lives in SluiceHTTP.
import CoreMetrics
import Foundation
import JobQueue
import JobStore
import MediaEngine
import MediaJob
import JobDocument
import NIOConcurrencyHelpers

/// The worker's metrics. Counters of bytes, frames, drops and reconnects are fed running totals (from
/// progress snapshots and output rows) and add only what grew since the last report, so overlapping
/// sources never count twice and a new attempt, which starts again from zero, is counted in full.
public final class WorkerMetrics: Sendable {

    /// Metric names, as scraped.
    public enum Name {
        /// Counter, label `state`: jobs that reached a terminal state (succeeded, failed, cancelled, rejected).
        public static let jobs = "sluice_jobs_total"
        /// Counter: attempts that ended in `retrying` (transient failure or requeue).
        public static let retries = "sluice_job_retries_total"
        /// Gauge: jobs running on this worker.
        public static let running = "sluice_jobs_running"
        /// Histogram (seconds), label `state`: how long a job's last attempt ran, by terminal state.
        public static let duration = "sluice_job_duration_seconds"
        /// Counter, label `kind` (`rtmp`, `flv`, `mp4`, `mpegts`, `adts`, `annexb`): bytes written.
        public static let outputBytes = "sluice_output_bytes_total"
        /// Counter, label `kind`: video frames written.
        public static let outputFrames = "sluice_output_frames_total"
        /// Counter, label `kind`: reconnections of network outputs.
        public static let outputReconnects = "sluice_output_reconnects_total"
        /// Counter, label `kind`: packets dropped because an output fell behind.
        public static let outputDrops = "sluice_output_drops_total"
        /// Gauge: video frames per second produced by the running jobs together (copy or encode).
        public static let encodeFPS = "sluice_encode_fps"
        /// Gauge, label `encoder` (`copy`, `none`, `libx264`, `h264_vaapi`, `pending`): running jobs by video encoder.
        public static let encoderJobs = "sluice_encoder_jobs"
        /// Gauge: 1 while the broker connection is up, else 0.
        public static let brokerUp = "sluice_broker_up"
        /// Counter: broker connections made (the first one and every reconnect).
        public static let brokerConnections = "sluice_broker_connections_total"
        /// Counter, label `code`: channels the broker closed (406 = a delivery outlived consumer_timeout).
        public static let brokerChannelErrors = "sluice_broker_channel_errors_total"
        /// Gauge: job leases this worker holds (one per running job).
        public static let leasesHeld = "sluice_job_leases_held"
        /// Gauge, label `class` (`live`, `batch`, `encode`): the slots of each class, i.e. the jobs it may run at
        /// once; for `encode`, the encode budget in 720p30-equivalents.
        public static let slots = "sluice_worker_slots"
        /// Gauge, label `class`: the slots in use; for `encode`, the units its running jobs cost.
        public static let slotsBusy = "sluice_worker_slots_busy"
        /// Counter: live encode deliveries this worker returned to `sluice.jobs.encode` because they did not fit in
        /// the encode budget left (each one waited for another worker, or for room here).
        public static let encodeDeferred = "sluice_worker_encode_deferred_total"
        /// Gauge, labels `job` and `output`: a running SRT output's smoothed round-trip time in milliseconds.
        public static let srtRoundTrip = "sluice_srt_rtt_milliseconds"
        /// Gauge, labels `job` and `output`: a running SRT output's sending rate in Mb/s.
        public static let srtSendRate = "sluice_srt_send_mbps"
        /// Counter: packets SRT outputs sent, retransmissions included.
        public static let srtPacketsSent = "sluice_srt_packets_sent_total"
        /// Counter: packets the receivers of SRT outputs reported lost.
        public static let srtPacketsLost = "sluice_srt_packets_lost_total"
        /// Counter: packets SRT outputs sent again.
        public static let srtPacketsRetransmitted = "sluice_srt_packets_retransmitted_total"
        /// Counter: packets SRT outputs dropped as too late to send.
        public static let srtPacketsDropped = "sluice_srt_packets_dropped_total"
    }

    /// Histogram buckets for `sluice_job_duration_seconds`: jobs last from seconds (files) to days (live).
    public static let durationBuckets: [Duration] = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 86400]
        .map { Duration.seconds($0) }

    /// The states `sluice_jobs_total` counts, shown from the start so dashboards see zeros, not gaps.
    public static let terminalStates: [JobState] = [.succeeded, .failed, .cancelled, .rejected]

    /// What the metrics remember of one job between reports: the totals already counted and its frame rate.
    private struct Tracked {
        var kinds: [Int: String] = [:]
        var counted: [Int: OutputTotals] = [:]
        var encoder: String?
        var running = false
        var lastFrames = 0
        var lastElapsed = 0.0
        var fps = 0.0
        /// SRT outputs' packet counters already counted, by output index.
        var srtCounted: [Int: SRTLinkStatistics] = [:]
    }

    private let factory: any MetricsFactory
    /// What was counted so far, locked: the jobs' threads, the broker's and a scrape meet here. The metric handles
    /// are thread-safe (swift-metrics' contract).
    private struct Books {
        var jobs: [String: Tracked] = [:]
        var encoderLabels: Set<String> = []
        var brokerConnectionsCounted = 0
        var channelErrorsCounted: [UInt16: Int] = [:]
        var slotTable: [JobClass: SlotUsage] = [:]
    }
    private let books = NIOLockedValueBox(Books())

    private let running: Gauge
    private let encodeFPS: Gauge
    private let brokerUp: Gauge
    private let brokerConnections: Counter
    private let retries: Counter
    private let encodeDeferrals: Counter

    /// - Parameter factory: where the metrics live (a Prometheus registry's factory in the worker).
    public init(factory: any MetricsFactory) {
        self.factory = factory
        running = Gauge(label: Name.running, factory: factory)
        encodeFPS = Gauge(label: Name.encodeFPS, factory: factory)
        brokerUp = Gauge(label: Name.brokerUp, factory: factory)
        brokerConnections = Counter(label: Name.brokerConnections, factory: factory)
        retries = Counter(label: Name.retries, factory: factory)
        encodeDeferrals = Counter(label: Name.encodeDeferred, factory: factory)
        running.record(0)
        encodeFPS.record(0)
        brokerUp.record(0)
        for state in Self.terminalStates {
            _ = Counter(label: Name.jobs, dimensions: [("state", state.rawValue)], factory: factory)
        }
    }

    // MARK: Reports

    /// A job entered the state of `job` (a committed record): counts terminal states and retries, times the
    /// attempt, keeps the running gauges, and takes the final output counters from `outputs`.
    /// - Parameters:
    ///   - job: the job after the transition.
    ///   - outputs: its output rows (redacted URLs, running totals).
    public func transitioned(_ job: JobRecord, outputs: [OutputRecord]) {
        books.withLockedValue { books in
            if job.state == .running {
                // A new attempt writes its outputs from zero again.
                books.jobs[job.id] = Tracked(encoder: job.encoder, running: true)
            } else if var tracked = books.jobs.removeValue(forKey: job.id) {
                // The attempt's last totals; rows of attempts this process never ran (reconciled at start) are not its bytes.
                count(outputs.map { ($0.index, Self.kind(of: $0), OutputTotals($0)) }, into: &tracked)
                // A link's gauges go with its job.
                for index in tracked.srtCounted.keys {
                    for name in [Name.srtRoundTrip, Name.srtSendRate] {
                        Gauge(label: name, dimensions: Self.linkLabels(job.id, index), factory: factory).destroy()
                    }
                }
            }
            refreshGauges(&books)
        }
        switch job.state {
        case .succeeded, .failed, .cancelled, .rejected:
            // The duration first: a scrape that sees the job counted sees its duration too.
            if let duration = job.duration {
                CoreMetrics.Timer(label: Name.duration, dimensions: [("state", job.state.rawValue)], factory: factory)
                    .recordNanoseconds(ClockConversion.clamped((max(duration, 0) * 1e9).rounded(), as: Int64.self))
            }
            Counter(label: Name.jobs, dimensions: [("state", job.state.rawValue)], factory: factory).increment()
        case .retrying:
            retries.increment()
        case .received, .running:
            break
        }
    }

    /// A progress snapshot of a running attempt: bytes and frames per output, and the job's frame rate.
    /// - Parameters:
    ///   - spec: the job (its outputs name the kinds).
    ///   - progress: the job's progress snapshot.
    public func progressed(_ spec: JobSpec, _ progress: MediaJobProgress) {
        books.withLockedValue { books in
            guard var tracked = books.jobs[spec.id], tracked.running else { return }
            if tracked.encoder == nil {
                let renditions = spec.videoRenditions
                if renditions.contains(where: { $0.mode == .encode }) {
                    tracked.encoder = "pending"
                } else {
                    tracked.encoder = renditions.isEmpty ? "none" : "copy"
                }
            }
            let totals = progress.outputs.enumerated().map { index, output in
                let kind = spec.outputs.indices.contains(index) ? Self.kind(of: spec.outputs[index]) : "unknown"
                return (index, kind, OutputTotals(bytes: output.bytes, frames: output.videoFrames))
            }
            count(totals, into: &tracked)
            for (index, output) in progress.outputs.enumerated() {
                if let link = output.srt { countLink(link, job: spec.id, index: index, into: &tracked) }
            }
            // Over the last second or more, so a burst between two snapshots does not swing the gauge.
            let interval = progress.elapsed - tracked.lastElapsed
            if interval >= 1 {
                tracked.fps = Double(max(0, progress.videoFrames - tracked.lastFrames)) / interval
                tracked.lastFrames = progress.videoFrames
                tracked.lastElapsed = progress.elapsed
            }
            books.jobs[spec.id] = tracked
            refreshGauges(&books)
        }
    }

    /// A running job's output rows (drops and reconnects live only there) and its record (the encoder it opened).
    /// - Parameters:
    ///   - job: the job's current record.
    ///   - outputs: its output rows.
    public func observed(_ job: JobRecord, outputs: [OutputRecord]) {
        books.withLockedValue { books in
            guard var tracked = books.jobs[job.id], tracked.running else { return }
            if let encoder = job.encoder { tracked.encoder = encoder }
            count(outputs.map { ($0.index, Self.kind(of: $0), OutputTotals($0)) }, into: &tracked)
            books.jobs[job.id] = tracked
            refreshGauges(&books)
        }
    }

    /// A class's slots changed (the worker started, or a job of the class started or ended).
    /// - Parameters:
    ///   - jobClass: the class.
    ///   - capacity: its slots.
    ///   - busy: how many are in use.
    public func slots(_ jobClass: JobClass, capacity: Int, busy: Int) {
        books.withLockedValue { books in books.slotTable[jobClass] = SlotUsage(jobClass: jobClass, capacity: capacity, busy: busy) }
        Gauge(label: Name.slots, dimensions: [("class", jobClass.rawValue)], factory: factory).record(capacity)
        Gauge(label: Name.slotsBusy, dimensions: [("class", jobClass.rawValue)], factory: factory).record(busy)
    }

    /// A live encode delivery did not fit in the encode budget left and went back to its queue.
    public func encodeDeferred() {
        encodeDeferrals.increment()
    }

    /// Each class's slots as last reported, live first (empty until the worker reported them).
    public var slotUsage: [SlotUsage] {
        books.withLockedValue { books in JobClass.allCases.compactMap { books.slotTable[$0] } }
    }

    /// The broker connection's state, read when metrics are scraped.
    /// - Parameters:
    ///   - connected: whether the connection is up.
    ///   - generation: connections made so far (1 for the first).
    ///   - channelErrors: channels the broker closed so far, by reply code.
    ///   - leasesHeld: job leases held now.
    public func broker(connected: Bool, generation: Int, channelErrors: [UInt16: Int] = [:], leasesHeld: Int = 0) {
        brokerUp.record(connected ? 1 : 0)
        Gauge(label: Name.leasesHeld, factory: factory).record(leasesHeld)
        for (code, count) in channelErrors {
            let added: Int = books.withLockedValue { books in
                defer { books.channelErrorsCounted[code] = max(books.channelErrorsCounted[code] ?? 0, count) }
                return max(0, count - (books.channelErrorsCounted[code] ?? 0))
            }
            if added > 0 {
                Counter(label: Name.brokerChannelErrors, dimensions: [("code", String(code))], factory: factory).increment(by: added)
            }
        }
        let added: Int = books.withLockedValue { books in
            defer { books.brokerConnectionsCounted = max(books.brokerConnectionsCounted, generation) }
            return max(0, generation - books.brokerConnectionsCounted)
        }
        if added > 0 { brokerConnections.increment(by: added) }
    }

    // MARK: Counting

    /// Adds what each output's totals grew by since they were last counted.
    private func count(_ outputs: [(index: Int, kind: String, totals: OutputTotals)], into tracked: inout Tracked) {
        for output in outputs {
            let kind = tracked.kinds[output.index] ?? output.kind
            tracked.kinds[output.index] = kind
            let before = tracked.counted[output.index] ?? OutputTotals()
            let grown = before.grown(to: output.totals)
            tracked.counted[output.index] = before.merged(with: output.totals)
            add(grown.bytes, to: Name.outputBytes, kind: kind)
            add(Int64(grown.frames), to: Name.outputFrames, kind: kind)
            add(Int64(grown.drops), to: Name.outputDrops, kind: kind)
            add(Int64(grown.reconnects), to: Name.outputReconnects, kind: kind)
        }
    }

    /// An SRT output's link: its gauges now, and what its packet counters grew by (a lagging report adds nothing).
    private func countLink(_ link: SRTLinkStatistics, job: String, index: Int, into tracked: inout Tracked) {
        let labels = Self.linkLabels(job, index)
        Gauge(label: Name.srtRoundTrip, dimensions: labels, factory: factory).record(link.roundTripMilliseconds)
        Gauge(label: Name.srtSendRate, dimensions: labels, factory: factory).record(link.sendMegabitsPerSecond)
        let before = tracked.srtCounted[index] ?? SRTLinkStatistics()
        for (name, now, then) in [(Name.srtPacketsSent, link.packetsSent, before.packetsSent),
                                  (Name.srtPacketsLost, link.packetsLost, before.packetsLost),
                                  (Name.srtPacketsRetransmitted, link.packetsRetransmitted, before.packetsRetransmitted),
                                  (Name.srtPacketsDropped, link.packetsDropped, before.packetsDropped)] {
            let counter = Counter(label: name, factory: factory)
            if now > then { counter.increment(by: now - then) }
        }
        tracked.srtCounted[index] = SRTLinkStatistics(
            packetsSent: max(before.packetsSent, link.packetsSent), packetsLost: max(before.packetsLost, link.packetsLost),
            packetsRetransmitted: max(before.packetsRetransmitted, link.packetsRetransmitted),
            packetsDropped: max(before.packetsDropped, link.packetsDropped))
    }

    /// The labels of one output's link gauges.
    static func linkLabels(_ job: String, _ index: Int) -> [(String, String)] {
        [("job", job), ("output", String(index))]
    }

    private func add(_ amount: Int64, to name: String, kind: String) {
        let counter = Counter(label: name, dimensions: [("kind", kind)], factory: factory)
        if amount > 0 { counter.increment(by: amount) }
    }

    /// Running jobs, their frame rate and their encoders; called with the books locked.
    private func refreshGauges(_ books: inout Books) {
        let active = books.jobs.values.filter(\.running)
        running.record(active.count)
        encodeFPS.record(active.reduce(0) { $0 + $1.fps })
        var byEncoder: [String: Int] = [:]
        // A job counts once its first snapshot (or record) names the encoder, within a progress interval of starting.
        for job in active { if let encoder = job.encoder { byEncoder[encoder, default: 0] += 1 } }
        // An encoder once shown stays, at 0, so its series does not vanish between jobs.
        books.encoderLabels.formUnion(byEncoder.keys)
        for label in books.encoderLabels {
            Gauge(label: Name.encoderJobs, dimensions: [("encoder", label)], factory: factory).record(byEncoder[label] ?? 0)
        }
    }

    /// `rtmp` or `srt` for network outputs, else the file format.
    static func kind(of output: OutputSpec) -> String {
        output.isSRT ? "srt" : output.isNetwork ? "rtmp" : output.format.rawValue
    }

    /// The same from a stored row (whose URL is redacted but keeps its scheme).
    static func kind(of output: OutputRecord) -> String {
        let url = output.url.lowercased()
        if url.hasPrefix("rtmp://") || url.hasPrefix("rtmps://") { return "rtmp" }
        if url.hasPrefix("srt://") { return "srt" }
        return output.format ?? "unknown"
    }
}

/// One output's running totals.
struct OutputTotals: Equatable {
    var bytes: Int64 = 0
    var frames = 0
    var drops = 0
    var reconnects = 0

    init(bytes: Int64 = 0, frames: Int = 0, drops: Int = 0, reconnects: Int = 0) {
        self.bytes = bytes
        self.frames = frames
        self.drops = drops
        self.reconnects = reconnects
    }

    init(_ record: OutputRecord) {
        self.init(bytes: record.bytes, frames: record.frames, drops: record.drops, reconnects: record.reconnects)
    }

    /// How much each total grew from `self` to `later` (never negative: a lagging source adds nothing).
    func grown(to later: OutputTotals) -> OutputTotals {
        OutputTotals(bytes: max(0, later.bytes - bytes), frames: max(0, later.frames - frames),
                     drops: max(0, later.drops - drops), reconnects: max(0, later.reconnects - reconnects))
    }

    /// The larger of each total.
    func merged(with other: OutputTotals) -> OutputTotals {
        OutputTotals(bytes: max(bytes, other.bytes), frames: max(frames, other.frames),
                     drops: max(drops, other.drops), reconnects: max(reconnects, other.reconnects))
    }
}

/// One class's slots: how many jobs of it the worker may run at once, and how many run now.
public struct SlotUsage: Sendable, Equatable {
    /// The class.
    public var jobClass: JobClass
    /// Its slots.
    public var capacity: Int
    /// Slots in use.
    public var busy: Int

    public init(jobClass: JobClass, capacity: Int, busy: Int) {
        self.jobClass = jobClass
        self.capacity = capacity
        self.busy = busy
    }
}
