import Foundation
import MediaFormats
import MediaJob
import NIOCore
import RTMP
import RTSP

/// An RTSP source: a camera pulled over TCP (RTP interleaved on the connection), reconnected with backoff as an RTMP
/// pull is. The RTSP exchange is the pure `RTSPClientConnection`'s; its RTP becomes the relay's FLV tags at the edge
/// (`RTPToFLVConverter`), so everything after `deliver` is the same as for RTMP and SRT.
struct RTSPSource {
    var handler: RTSPClientHandler?
    var connection: RTSPClientConnection?
    /// Made when PLAY is answered: the presentation's tracks say what it converts.
    var edge: RTPToFLVConverter?
    /// RTP that came before PLAY's answer (a server may start sending first): fed to the edge once it is made.
    var early: [(track: Int, packet: [UInt8])] = []
    var keepAlive: Scheduled<Void>?
    /// Tags of one read burst, and the bytes it read.
    var messages: [Message] = []
    var burstBytes = 0
    /// Converted tracks whose sender said goodbye (RTCP BYE): when all have, the stream ended.
    var goodbyes: Set<Int> = []
    /// The connection's damage was named in the job's log (once per connection; again in sum when it ends).
    var damageNamed = false

    /// The most RTP packets held before PLAY's answer.
    static let maxEarlyPackets = 1024
}

extension RelaySession {
    func connectRTSPSource() {
        guard case let .rtspPull(url) = source.kind, !end.begun else { return }
        let generation = beginPullConnection()
        let nonce = (0..<4).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max)) }.joined()
        source.rtsp = RTSPSource()
        source.rtsp.connection = RTSPClientConnection(configuration: .init(url: url, transport: .interleaved, userAgent: "Sluice", clientNonce: nonce))
        let handler = RTSPClientHandler { [self] event in rtspEvent(generation, event) }
        source.rtsp.handler = handler
        open(host: url.host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: url.port, secure: url.scheme == "rtsps", handler: handler)
            .whenFailure { [self] error in
                if generation == source.pull.generation { source.pull.lastError = describeNetworkError(error) }
                rtspSourceLost(generation)
            }
    }

    func rtspEvent(_ generation: Int, _ event: RTSPConnectionEvent) {
        guard generation == source.pull.generation, !end.begun else { return }
        switch event {
        case .active:
            apply(rtsp: .connected, generation)
        case let .received(bytes):
            source.rtsp.burstBytes += bytes.count
            apply(rtsp: .received(bytes), generation)
        case .readComplete:
            deliverRTSPBurst()
        case let .closed(error):
            if let error, source.pull.lastError == nil { source.pull.lastError = error }
            deliverRTSPBurst()
            apply(rtsp: .disconnected, generation)
            rtspSourceLost(generation)
        }
    }

    /// Runs one event through the connection's state machine and applies what it says.
    private func apply(rtsp event: RTSPClientConnection.Event, _ generation: Int) {
        guard var connection = source.rtsp.connection else { return }
        let actions = connection.handle(event)
        source.rtsp.connection = connection
        for action in actions {
            guard generation == source.pull.generation else { return }
            switch action {
            case let .send(bytes):
                source.rtsp.handler?.send(bytes)
            case let .deliverRTP(track, packet):
                rtp(packet, track: track)
            case let .deliverRTCP(track, packet):
                rtcp(packet, track: track)
            case let .playing(presentation):
                play(presentation)
            case let .scheduleKeepAlive(seconds):
                source.rtsp.keepAlive?.cancel()
                source.rtsp.keepAlive = loop.scheduleTask(in: .seconds(Int64(seconds))) { [self] in
                    guard generation == source.pull.generation, !end.begun else { return }
                    apply(rtsp: .keepAliveTimer, generation)
                }
            case let .fail(error):
                source.pull.lastError = "RTSP \(error)"
            case .close:
                source.rtsp.handler?.channel?.close(promise: nil)
            }
        }
    }

    /// PLAY was answered: the edge for the tracks it can convert; the others are named once, and a camera with none
    /// is closed (the error says what it offered).
    private func play(_ presentation: RTSPClientConnection.Presentation) {
        var formats: [RTPTrackFormat?] = []
        var skipped: [String] = []
        for (index, track) in presentation.tracks.enumerated() {
            do {
                formats.append(try RTPTrackFormat(media: track.media, playStartRTPTime: track.rtpInfo?.rtpTime))
            } catch {
                formats.append(nil)
                skipped.append("track \(index) (\(track.media.media)): \(error)")
            }
        }
        let edge = RTPToFLVConverter(tracks: formats)
        guard !edge.convertedTracks.isEmpty else {
            source.pull.lastError = "the camera plays no stream this worker carries: " + skipped.joined(separator: "; ")
            source.rtsp.handler?.channel?.close(promise: nil)
            return
        }
        if input.connections == 1 {
            let carried = edge.convertedTracks.map { "\($0.format.codec.name) (\($0.format.codec.isVideo ? "video" : "audio"))" }
            let timing = edge.convertedTracks.allSatisfy { $0.format.playStartRTPTime != nil } ? "timed by RTP-Info" : "timed by arrival"
            engine.report("\(jobLabel)input \(options.inputName): the camera plays \(carried.joined(separator: " and ")) over TCP, \(timing)"
                          + (skipped.isEmpty ? "" : "; not carried: " + skipped.joined(separator: "; ")))
        }
        source.rtsp.edge = edge
        let early = source.rtsp.early
        source.rtsp.early = []
        for held in early { rtp(held.packet, track: held.track) }
    }

    private func rtp(_ packet: [UInt8], track: Int) {
        guard var edge = source.rtsp.edge else {
            if source.rtsp.early.count < RTSPSource.maxEarlyPackets { source.rtsp.early.append((track, packet)) }
            return
        }
        let arrival = Int64(RelaySession.now() / 1_000_000)
        for tag in edge.feed(packet, track: track, arrival: arrival) {
            source.rtsp.messages.append(Message(typeID: tag.typeID, timestamp: UInt32(truncatingIfNeeded: tag.timestamp), streamID: 1, payload: tag.data))
        }
        source.rtsp.edge = edge
        if !source.rtsp.damageNamed, edge.statistics.damageCount > 0 {
            source.rtsp.damageNamed = true
            engine.report("\(jobLabel)input \(options.inputName): the camera's RTP is damaged (\(edge.statistics.damageDescription ?? "")); "
                          + "a lost frame is dropped and the video resumes at the next keyframe, counted until the connection ends")
        }
    }

    /// RTCP from the camera: a BYE on every converted track ends the stream (a clean end, as an RTMP unpublish).
    private func rtcp(_ packet: [UInt8], track: Int) {
        guard let edge = source.rtsp.edge, RTCPCompound.saysGoodbye(packet) else { return }
        source.rtsp.goodbyes.insert(track)
        if edge.convertedTracks.allSatisfy({ source.rtsp.goodbyes.contains($0.index) }) {
            input.lastEndClean = true
            deliverRTSPBurst()
            stopRTSPConnection()
        }
    }

    /// What one read burst made, relayed together.
    private func deliverRTSPBurst() {
        let bytes = source.rtsp.burstBytes
        guard bytes > 0 || !source.rtsp.messages.isEmpty else { return }
        source.rtsp.burstBytes = 0
        let messages = source.rtsp.messages
        source.rtsp.messages.removeAll(keepingCapacity: true)
        deliver(messages, receivedAt: measuresLatency ? RelaySession.now() : 0, bytes: bytes)
    }

    /// The connection ended or could not be made: its damage named in sum, and the pull opened again after a backoff.
    func rtspSourceLost(_ generation: Int) {
        guard generation == source.pull.generation else { return }
        nameRTSPDamageInSum()
        source.rtsp.keepAlive?.cancel()
        source.rtsp.handler?.channel?.close(promise: nil)
        source.rtsp = RTSPSource()
        sourceLost(generation, clean: input.lastEndClean)
    }

    /// TEARDOWN sent (when a session was set up), then the connection closed.
    private func stopRTSPConnection() {
        guard var connection = source.rtsp.connection else { return }
        let actions = connection.handle(.stop)
        source.rtsp.connection = connection
        source.rtsp.keepAlive?.cancel()
        let teardown = actions.compactMap { action -> [UInt8]? in
            if case let .send(bytes) = action { return bytes }
            return nil
        }.joined()
        if teardown.isEmpty {
            source.rtsp.handler?.channel?.close(promise: nil)
        } else {
            source.rtsp.handler?.send(Array(teardown), thenClose: true)
        }
    }

    private func nameRTSPDamageInSum() {
        if source.rtsp.damageNamed, let damage = source.rtsp.edge?.statistics.damageDescription {
            engine.report("\(jobLabel)input \(options.inputName): the RTSP connection ended; its RTP had \(damage)")
        }
        source.rtsp.damageNamed = false
    }

    /// The job ends: TEARDOWN to the camera, the connection closed.
    func closeRTSPSource() {
        guard case .rtspPull = source.kind else { return }
        nameRTSPDamageInSum()
        stopRTSPConnection()
        source.rtsp.handler = nil
    }

    /// The camera's connection was quiet for half the input timeout: closed, and opened again.
    func rtspSourceStalled() {
        source.pull.stalledClose = true
        source.rtsp.handler?.channel?.close(promise: nil)
    }
}
