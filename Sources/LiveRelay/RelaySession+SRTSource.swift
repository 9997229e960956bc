import Foundation
import JobDocument
import MediaFormats
import MediaJob
import NIOCore
import RTMP
import SRTTransport

/// An SRT source: a caller pulling the job's input (reconnected with backoff, as an RTMP pull is), or the publisher the
/// shared SRT port routed here. Its MPEG-TS becomes the relay's FLV tags at the edge (`TSToFLVTags`), so everything
/// after `deliver` is the same as for RTMP.
struct SRTSource {
    var connection: SRTConnection?
    /// The listen job's claim on its SRT port.
    var route: SRTIngestRoute?
    /// The TS of the current connection, read into tags; a new connection starts a new one.
    var edge = TSToFLVTags()
    /// Tags of one read burst (kept to reuse its storage).
    var messages: [Message] = []
}

extension RelaySession {
    // MARK: Pull (a caller)

    func connectSRTSource() {
        guard case let .srtPull(url) = source, !ending else { return }
        pullSource.generation += 1
        let generation = pullSource.generation
        input.connections += 1
        pullSource.stalledClose = false
        pullSource.openedAt = RelaySession.now()
        timeline.beginSegment()
        srt.edge = TSToFLVTags()
        SRTConnection.connect(to: url.transportOptions, timeout: networkTimeout) { [self] result in
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
        if let reason, !reason.isPeerClose { pullSource.lastError = reason.description }
        srt.connection?.close()
        srt.connection = nil
        flushSRTEdge()
        // A peer that closed its side ended its stream; silence or an error did not.
        sourceLost(generation, clean: reason?.isPeerClose ?? input.lastEndClean)
    }

    // MARK: Listen (the shared SRT port)

    /// A publisher was routed here and finished its handshake; `token` names it in the calls that follow.
    func srtPublisherAttached(_ token: Int, connection: SRTConnection) {
        publisher.token = token
        srt.connection = connection
        srt.edge = TSToFLVTags()
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
        input.lastEndClean = reason.isPeerClose
    }

    // MARK: Media

    /// One read burst of TS from the current connection (`generation` for a pull, nil for a publisher).
    func srtMedia(_ bytes: [UInt8], generation: Int?) {
        if let generation, generation != pullSource.generation { return }
        let receivedAt = RelaySession.measuresLatency ? RelaySession.now() : 0
        srt.messages.removeAll(keepingCapacity: true)
        for tag in srt.edge.feed(bytes) { srt.messages.append(Message(tag: tag)) }
        if srt.messages.isEmpty {
            progress.bytesIn += Int64(bytes.count)
            return
        }
        deliver(srt.messages, receivedAt: receivedAt, bytes: bytes.count)
    }

    /// The last access units held by the edge (it waits for the next PES to know one ended) go out when the connection does.
    func flushSRTEdge() {
        let tail = srt.edge.flush().map(Message.init(tag:))
        if !tail.isEmpty { deliver(tail, receivedAt: 0, bytes: 0) }
    }

    func closeSRTSource() {
        srt.connection?.close()
        srt.connection = nil
        if let route = srt.route { engine.srtIngest.unregister(route) }
        srt.route = nil
    }
}

extension Message {
    /// An FLV tag read from an SRT input's TS, as a message of the relay's media stream (1).
    init(tag: FLVTag) {
        self.init(typeID: tag.typeID, timestamp: UInt32(truncatingIfNeeded: tag.timestamp), streamID: 1, payload: tag.body)
    }
}
