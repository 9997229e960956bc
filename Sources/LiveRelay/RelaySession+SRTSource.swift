import Foundation
import JobDocument
import MediaFormats
import MediaJob
import NIOCore
import RTMP
import SRTTransport

/// An SRT source: a caller pulling the job's input (reconnected with backoff, as an RTMP pull is), or the publisher the
/// shared SRT port routed here. Its MPEG-TS becomes the relay's FLV tags at the edge (`TSToFLVConverter`), so everything
/// after `deliver` is the same as for RTMP.
struct SRTSource {
    var connection: SRTConnection?
    /// The listen job's claim on its SRT port.
    var route: SRTIngestRoute?
    /// The TS of the current connection, read into tags; a new connection starts a new one.
    var edge = TSToFLVConverter()
    /// Tags of one read burst (kept to reuse its storage).
    var messages: [Message] = []
    /// The connection's TS was named damaged in the job's log (once per connection; again in one line when it ends).
    var damageNamed = false

    /// A new connection: a new edge, whose damage is not yet named.
    mutating func newConnection() {
        edge = TSToFLVConverter()
        damageNamed = false
    }
}

extension RelaySession {
    // MARK: Pull (a caller)

    func connectSRTSource() {
        guard case let .srtPull(url) = source, !ending else { return }
        let generation = beginPullConnection()
        srt.newConnection()
        SRTConnection.connect(to: url, timeout: .milliseconds(Int(networkTimeout * 1000)), timestampBasedDelivery: false) { [self] result in
            loop.execute { [self] in
                switch result {
                case let .success(connection):
                    guard generation == pullSource.generation, !ending else {
                        connection.close()
                        return
                    }
                    srt.connection = connection
                    connection.start(
                        receive: { [self] bytes in loop.execute { [self] in srtMedia(bytes, generation: generation) } },
                        closed: { [self] reason in loop.execute { [self] in srtSourceClosed(generation, reason: reason) } })
                case let .failure(error):
                    guard generation == pullSource.generation else { return }
                    pullSource.lastError = "\(error)"
                    srtSourceClosed(generation, reason: nil)
                }
            }
        }
    }

    func srtSourceClosed(_ generation: Int, reason: SRTCloseReason?) {
        guard generation == pullSource.generation, !ending else { return }
        if let reason, !reason.endsStream { pullSource.lastError = reason.text }
        srt.connection?.close()
        srt.connection = nil
        flushSRTEdge()
        // A peer that closed its side ended its stream; silence or an error did not.
        sourceLost(generation, clean: reason?.endsStream ?? input.lastEndClean)
    }

    // MARK: Listen (the shared SRT port)

    /// A publisher was routed here and finished its handshake; `token` names it in the calls that follow.
    func srtPublisherAttached(_ token: Int, connection: SRTConnection) {
        publisher.token = token
        srt.connection = connection
        srt.newConnection()
        input.connections += 1
        timeline.beginSegment()
        if ending { connection.close() }
    }

    func srtPublisherMedia(_ token: Int, _ bytes: [UInt8]) {
        guard token == publisher.token else { return }
        srtMedia(bytes, generation: nil)
    }

    func srtPublisherDetached(_ token: Int, reason: SRTCloseReason) {
        guard token == publisher.token else { return }
        flushSRTEdge()
        publisher.token = 0
        srt.connection = nil
        input.lastEndClean = reason.endsStream
    }

    // MARK: Media

    /// One read burst of TS from the current connection (`generation` for a pull, nil for a publisher).
    func srtMedia(_ bytes: [UInt8], generation: Int?) {
        if let generation, generation != pullSource.generation { return }
        relayEdge(srt.edge.feed(bytes), bytes: bytes.count)
        if !srt.damageNamed, srt.edge.statistics.damageCount > 0 {
            // Named once when it starts, and once in sum when the connection ends: a publisher sending garbage, cut PES
            // or a PMT that keeps changing fills no log, and the frames around the damage still go out.
            srt.damageNamed = true
            engine.report("\(jobLabel)input \(options.inputName): the SRT \(generation == nil ? "publisher" : "source") sends damaged MPEG-TS "
                          + "(\(srt.edge.statistics.damageDescription ?? "")); what it damaged is dropped, counted until it ends")
        }
    }

    /// The last access units held by the edge (it waits for the next PES to know one ended) go out when the connection
    /// does, and its damage, if any, is named in sum.
    func flushSRTEdge() {
        relayEdge(srt.edge.flush(), bytes: 0)
        nameSRTDamageInSum()
    }

    /// The connection's damage in one line when it ends (or the job ends with it open), if its start was named.
    func nameSRTDamageInSum() {
        if srt.damageNamed, let damage = srt.edge.statistics.damageDescription {
            engine.report("\(jobLabel)input \(options.inputName): the SRT connection ended; its MPEG-TS had \(damage)")
        }
        srt.damageNamed = false
    }

    /// Relays what the edge made of a burst: its tags, and a restart of the input's clock as a new timeline segment.
    func relayEdge(_ events: [TSToFLVEvent], bytes: Int) {
        let receivedAt = measuresLatency ? RelaySession.now() : 0
        srt.messages.removeAll(keepingCapacity: true)
        var counted = false
        for event in events {
            switch event {
            case let .tag(tag):
                srt.messages.append(Message(typeID: tag.typeID, timestamp: UInt32(truncatingIfNeeded: tag.timestamp), streamID: 1, payload: tag.data))
            case .discontinuity:
                deliver(srt.messages, receivedAt: receivedAt, bytes: counted ? 0 : bytes)
                counted = true
                srt.messages.removeAll(keepingCapacity: true)
                timeline.beginSegment()
            }
        }
        deliver(srt.messages, receivedAt: receivedAt, bytes: counted ? 0 : bytes)
    }

    /// "job ID: " when the job has an id (the worker's log carries many jobs' lines), else nothing.
    var jobLabel: String { options.jobID.map { "job \($0): " } ?? "" }

    func closeSRTSource() {
        // The job ends with a publisher still sending (its input timed out on garbage, or max_duration_s came).
        if srt.connection != nil { nameSRTDamageInSum() }
        srt.connection?.close()
        srt.connection = nil
        if let route = srt.route { engine.srtIngest.unregister(route) }
        srt.route = nil
    }
}

extension SRTCloseReason {
    /// The peer closed the connection or stopped answering: its stream ended, as an RTMP unpublish ends one (libsrt
    /// tells the two apart nowhere); a failure to read is not an end.
    var endsStream: Bool {
        if case .broken = self { return true }
        return false
    }

    /// The reason as the job's error names it.
    var text: String {
        switch self {
        case let .broken(message): "the SRT connection broke: \(message)"
        case let .failed(error): "\(error)"
        }
    }
}
