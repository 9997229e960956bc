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
        guard case let .srtPull(url) = source.kind, !end.begun else { return }
        let generation = beginPullConnection()
        source.srt.newConnection()
        SRTConnection.connect(to: url, timeout: .milliseconds(Int(networkTimeout * 1000)), timestampBasedDelivery: false) { [self] result in
            loop.execute { [self] in
                switch result {
                case let .success(connection):
                    guard generation == source.pull.generation, !end.begun else {
                        connection.close()
                        return
                    }
                    source.srt.connection = connection
                    connection.start(
                        receive: { [self] bytes in loop.execute { [self] in srtMedia(bytes, generation: generation) } },
                        closed: { [self] reason in loop.execute { [self] in srtSourceClosed(generation, reason: reason) } })
                case let .failure(error):
                    guard generation == source.pull.generation else { return }
                    source.pull.lastError = "\(error)"
                    srtSourceClosed(generation, reason: nil)
                }
            }
        }
    }

    func srtSourceClosed(_ generation: Int, reason: SRTCloseReason?) {
        guard generation == source.pull.generation, !end.begun else { return }
        if let reason, !reason.endsStream { source.pull.lastError = reason.text }
        source.srt.connection?.close()
        source.srt.connection = nil
        flushSRTEdge()
        // A peer that closed its side ended its stream; silence or an error did not.
        sourceLost(generation, clean: reason?.endsStream ?? input.lastEndClean)
    }

    // MARK: Listen (the shared SRT port)

    /// A publisher was routed here and finished its handshake; `token` names it in the calls that follow.
    func srtPublisherAttached(_ token: Int, connection: SRTConnection) {
        source.publisher.token = token
        source.srt.connection = connection
        source.srt.newConnection()
        input.connections += 1
        timeline.beginSegment()
        if end.begun { connection.close() }
    }

    func srtPublisherMedia(_ token: Int, _ bytes: [UInt8]) {
        guard token == source.publisher.token else { return }
        srtMedia(bytes, generation: nil)
    }

    func srtPublisherDetached(_ token: Int, reason: SRTCloseReason) {
        guard token == source.publisher.token else { return }
        flushSRTEdge()
        source.publisher.token = 0
        source.srt.connection = nil
        input.lastEndClean = reason.endsStream
    }

    // MARK: Media

    /// One read burst of TS from the current connection (`generation` for a pull, nil for a publisher).
    func srtMedia(_ bytes: [UInt8], generation: Int?) {
        if let generation, generation != source.pull.generation { return }
        relayEdge(source.srt.edge.feed(bytes), bytes: bytes.count)
        if !source.srt.damageNamed, source.srt.edge.statistics.damageCount > 0 {
            // Named once when it starts, and once in sum when the connection ends: a publisher sending garbage, cut PES
            // or a PMT that keeps changing fills no log, and the frames around the damage still go out.
            source.srt.damageNamed = true
            engine.report("\(jobLabel)input \(options.inputName): the SRT \(generation == nil ? "publisher" : "source") sends damaged MPEG-TS "
                          + "(\(source.srt.edge.statistics.damageDescription ?? "")); what it damaged is dropped, counted until it ends")
        }
    }

    /// The last access units held by the edge (it waits for the next PES to know one ended) go out when the connection
    /// does, and its damage, if any, is named in sum.
    func flushSRTEdge() {
        relayEdge(source.srt.edge.flush(), bytes: 0)
        nameSRTDamageInSum()
    }

    /// The connection's damage in one line when it ends (or the job ends with it open), if its start was named.
    func nameSRTDamageInSum() {
        if source.srt.damageNamed, let damage = source.srt.edge.statistics.damageDescription {
            engine.report("\(jobLabel)input \(options.inputName): the SRT connection ended; its MPEG-TS had \(damage)")
        }
        source.srt.damageNamed = false
    }

    /// Relays what the edge made of a burst: its tags, and a restart of the input's clock as a new timeline segment.
    func relayEdge(_ events: [TSToFLVEvent], bytes: Int) {
        let receivedAt = measuresLatency ? RelaySession.now() : 0
        source.srt.messages.removeAll(keepingCapacity: true)
        var counted = false
        for event in events {
            switch event {
            case let .tag(tag):
                source.srt.messages.append(Message(typeID: tag.typeID, timestamp: UInt32(truncatingIfNeeded: tag.timestamp), streamID: 1, payload: tag.data))
            case .discontinuity:
                deliver(source.srt.messages, receivedAt: receivedAt, bytes: counted ? 0 : bytes)
                counted = true
                source.srt.messages.removeAll(keepingCapacity: true)
                timeline.beginSegment()
            }
        }
        deliver(source.srt.messages, receivedAt: receivedAt, bytes: counted ? 0 : bytes)
    }

    /// "job ID: " when the job has an id (the worker's log carries many jobs' lines), else nothing.
    var jobLabel: String { options.jobID.map { "job \($0): " } ?? "" }

    func closeSRTSource() {
        // The job ends with a publisher still sending (its input timed out on garbage, or max_duration_s came).
        if source.srt.connection != nil { nameSRTDamageInSum() }
        source.srt.connection?.close()
        source.srt.connection = nil
        if let route = source.srt.route { engine.srtIngest.unregister(route) }
        source.srt.route = nil
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
