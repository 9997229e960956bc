import Foundation
import JobDocument
import MediaFormats
import MediaJob
import NIOCore
import RTMP
import SRTTransport
import Synchronization

/// One SRT output of a live job: MPEG-TS made from the relay's FLV tags at the edge (`FLVToTSConverter`), sent as
/// 1,316-byte messages on a caller connection (or to the one reader of a listener), reconnected with backoff.
/// Touched only on the session's event loop.
final class SRTOutputLink {
    let index: Int
    let name: String
    let url: SRTURL
    var connection: SRTConnection?
    /// Bumped per connection: events of an abandoned connection are ignored.
    var generation = 0
    var ready = false
    var progress = OutputProgress()
    var failures = 0
    var retry: Scheduled<Void>?
    /// The TS of the current connection; a new connection starts a new one (PAT/PMT first, continuity from 0).
    var edge: FLVToTSConverter
    /// TS datagrams made since the last flush, sent once per source read burst.
    var pending: [[UInt8]] = []
    /// When the connection last could not take a datagram (monotonic ns), 0 while it takes them.
    var unwritableSince: UInt64 = 0
    /// The send buffer was full at the last flush: the core drops to the next keyframe for this output.
    var blocked = false
    /// The one reader's port while a `mode=listener` output waits for it.
    var listener: SRTListener?
    let hasVideo: Bool
    let hasAudio: Bool
    /// The packet counters of the connections closed so far (libsrt's start from zero on each connection).
    private var closedConnections = SRTLinkStatistics()
    /// The current connection's last sample.
    private var current = SRTLinkStatistics()

    init(index: Int, name: String, url: SRTURL, hasVideo: Bool, hasAudio: Bool) {
        self.index = index
        self.name = name
        self.url = url
        self.hasVideo = hasVideo
        self.hasAudio = hasAudio
        edge = FLVToTSConverter(expectsVideo: hasVideo, expectsAudio: hasAudio)
        progress.status = .connecting
    }

    /// Reads the current connection's counters into `progress.srt` (with the job's progress, about once a second: the
    /// rate covers the time since the previous sample).
    func sampleLink() {
        guard let connection else { return }
        do {
            current = SRTLinkStatistics(try connection.statistics())
        } catch {
            // A connection going down may have no counters left: its last sample stands, and its end is reported by its close.
            return
        }
        progress.srt = closedConnections.adding(current)
    }

    /// The connection is about to close: its last counters join the closed connections'.
    func foldLink() {
        sampleLink()
        closedConnections = closedConnections.adding(current)
        current = SRTLinkStatistics()
        if progress.srt != nil { progress.srt?.sendMegabitsPerSecond = 0 }
    }
}

extension SRTLinkStatistics {
    /// An output's view of a connection's counters: what it sent, and what its receiver lost.
    init(_ statistics: SRTStatistics) {
        self.init(roundTripMilliseconds: statistics.roundTripMilliseconds, sendMegabitsPerSecond: statistics.sendMegabitsPerSecond,
                  packetsSent: statistics.packetsSent, packetsLost: statistics.packetsSendLost,
                  packetsRetransmitted: statistics.packetsRetransmitted, packetsDropped: statistics.packetsSendDropped)
    }
}

extension RelaySession {
    func srtOutput(_ index: Int) -> SRTOutputLink? {
        links.srt.first { $0.index == index }
    }

    func connect(_ output: SRTOutputLink) {
        guard !end.begun else { return }
        let generation = output.beginConnection()
        core.outputGone(output.index)
        output.edge = FLVToTSConverter(expectsVideo: output.hasVideo, expectsAudio: output.hasAudio)
        output.pending.removeAll()
        output.blocked = false
        let index = output.index
        let opened: @Sendable (Result<SRTConnection, SRTError>) -> Void = { [self] result in
            loop.execute { [self] in
                guard let output = srtOutput(index), output.generation == generation, !end.begun else {
                    if case let .success(connection) = result { connection.close() }
                    return
                }
                switch result {
                case let .success(connection):
                    output.listener?.close()
                    output.listener = nil
                    output.connection = connection
                    connection.start(receive: { _ in }, closed: { [self] reason in
                        loop.execute { [self] in srtOutputLost(index, generation, reason.text) }
                    })
                    output.ready = true
                    output.failures = 0
                    output.progress.status = .running
                    replaySRT(to: output)
                case let .failure(error):
                    srtOutputLost(index, generation, "\(error)")
                }
            }
        }
        if output.url.mode == .listener {
            listen(for: output, opened)
        } else {
            SRTConnection.connect(to: output.url, timeout: .milliseconds(Int(networkTimeout * 1000)), completion: opened)
        }
    }

    /// `mode=listener`: the output's own port waits for one reader (with the output's passphrase), then closes.
    func listen(for output: SRTOutputLink, _ opened: @escaping @Sendable (Result<SRTConnection, SRTError>) -> Void) {
        let slot = ReaderSlot()
        do {
            output.listener = try SRTListener(
                host: output.url.host, port: output.url.port, latencyMilliseconds: output.url.latencyMilliseconds,
                admit: { [passphrase = output.url.passphrase] _, _ in
                    slot.isTaken ? .refuse(reason: "this output already has its reader", code: .conflict) : .accept(passphrase: passphrase)
                },
                onAccept: { connection, _ in
                    guard slot.take() else {
                        connection.close()
                        return
                    }
                    opened(.success(connection))
                },
                onRefused: { [report = engine.report, name = output.name] peer, reason in report("SRT reader from \(peer) refused by \(name): \(reason)") })
        } catch {
            opened(.failure(error))
        }
    }

    /// A ready output starts from the kept key frame instead of waiting for the next one.
    func replaySRT(to output: SRTOutputLink) {
        let replay = core.outputReady(output.index)
        guard !replay.isEmpty else { return }
        apply(replay)
        flushOutputs(receivedAt: 0)
    }

    func encode(_ message: Message, _ head: FLVTagHead, to output: SRTOutputLink) {
        guard output.ready else { return }
        guard let type = FLVTagType(rawValue: message.typeID) else { return }
        do {
            output.pending += try output.edge.feed(FLVStreamTag(type: type, timestamp: Int64(message.timestamp), data: message.payload))
        } catch {
            srtOutputLost(output.index, output.generation, "\(error)", permanent: true)
            return
        }
        output.progress.count(head)
    }

    /// Sends each output's datagrams of this read burst; a full send buffer drops the rest (the core then waits for the
    /// next keyframe for this output).
    func flushSRTOutputs() {
        for output in links.srt where !output.pending.isEmpty {
            guard let connection = output.connection else {
                output.pending.removeAll(keepingCapacity: true)
                continue
            }
            for datagram in output.pending where !output.blocked {
                switch connection.send(datagram) {
                case .sent:
                    output.progress.bytes += Int64(datagram.count)
                    output.unwritableSince = 0
                case .wouldBlock:
                    output.blocked = true
                    output.progress.drops += 1
                    if output.unwritableSince == 0 { output.unwritableSince = RelaySession.now() }
                    core.outputWritable(output.index, false)
                case let .failed(error):
                    output.pending.removeAll(keepingCapacity: true)
                    srtOutputLost(output.index, output.generation, "\(error)")
                    return
                }
            }
            output.pending.removeAll(keepingCapacity: true)
        }
    }

    /// Before a read burst: an output whose send buffer was full is offered the stream again (libsrt says nothing when
    /// the buffer drains); the core lets it start again from a keyframe, and a buffer still full drops again.
    func noteSRTWritability() {
        for output in links.srt where output.ready {
            output.blocked = false
            core.outputWritable(output.index, true)
        }
    }

    func srtOutputLost(_ index: Int, _ generation: Int, _ error: String, permanent: Bool = false) {
        guard !end.begun, let output = srtOutput(index), output.generation == generation else { return }
        output.generation += 1
        output.foldLink()
        output.connection?.close()
        output.connection = nil
        output.listener?.close()
        output.listener = nil
        output.ready = false
        output.pending.removeAll()
        retryOrGiveUp(output, error, permanent: permanent) { [self] in connect(output) }
    }

    /// The job ends: what is pending goes out, and each connection closes once its peer acknowledged everything sent
    /// and had the latency to hand it on (closing at once drops the send buffer's last packets, as libsrt does not linger
    /// in live mode, and a receiver drops what its latency buffer still holds when the peer goes), or after
    /// `drainLimit`. The futures complete when the connections are closed.
    func closeSRTOutputs() -> [EventLoopFuture<Void>] {
        for output in links.srt where output.ready { output.pending += output.edge.flush() }
        flushSRTOutputs()
        var closing: [EventLoopFuture<Void>] = []
        for output in links.srt {
            output.retry?.cancel()
            output.listener?.close()
            output.listener = nil
            if output.ready {
                output.progress.status = .finished
            } else if output.progress.status != .failed {
                output.progress.status = .failed
                if output.progress.lastError == nil { output.progress.lastError = "the job ended before the output connected" }
            }
            if let closed = closeDrained(output) { closing.append(closed) }
        }
        return closing
    }

    /// Takes the output's connection and closes it once its peer acknowledged what was sent and had the latency to
    /// hand it on (at most `drainLimit`); nil when it had none.
    func closeDrained(_ output: SRTOutputLink) -> EventLoopFuture<Void>? {
        guard let connection = output.connection else { return nil }
        output.foldLink()
        output.connection = nil
        let closed = loop.makePromise(of: Void.self)
        // The receiver releases a packet its latency after it was sent (half as much again for a late ACK).
        let latency = TimeAmount.milliseconds(Int64(output.url.latencyMilliseconds) * 3 / 2 + 20)
        drain(connection, until: NIODeadline.now() + RelaySession.drainLimit, latency: latency, closed: closed)
        return closed.futureResult
    }

    /// How long a finished SRT output may take to have its last packets acknowledged.
    static let drainLimit = TimeAmount.seconds(2)

    private func drain(_ connection: SRTConnection, until deadline: NIODeadline, latency: TimeAmount, closed: EventLoopPromise<Void>) {
        let unacknowledged = (try? connection.statistics().unacknowledgedPackets) ?? 0
        let now = NIODeadline.now()
        guard unacknowledged > 0, now < deadline else {
            loop.scheduleTask(deadline: min(now + latency, max(deadline, now))) {
                connection.close()
                closed.succeed()
            }
            return
        }
        loop.scheduleTask(in: .milliseconds(20)) { [self] in drain(connection, until: deadline, latency: latency, closed: closed) }
    }
}

/// The one reader a `mode=listener` output takes: the first handshake to finish wins, later ones are refused.
final class ReaderSlot: Sendable {
    private let taken = Atomic<Bool>(false)

    var isTaken: Bool { taken.load(ordering: .acquiring) }

    /// True for the first caller only.
    func take() -> Bool { !taken.exchange(true, ordering: .acquiringAndReleasing) }
}
