import Foundation
import MediaFormats
import MediaJob
import NIOCore
import NIOPosix
import RTMP
import RTSP

/// An RTSP source: a camera pulled over TCP (RTP interleaved on the connection) or UDP (RTP and RTCP on a block of
/// the engine's client ports, receiver reports sent back), reconnected with backoff as an RTMP pull is. The RTSP exchange is the pure `RTSPClientConnection`'s; its RTP becomes the relay's FLV tags at the edge
/// (`RTPToFLVConverter`), so everything after `deliver` is the same as for RTMP and SRT.
struct RTSPSource {
    var handler: RTSPClientHandler?
    var connection: RTSPClientConnection?
    /// Made when PLAY is answered: the presentation's tracks say what it converts.
    var edge: RTPToFLVConverter?
    /// A G.711 track's samples made AAC (made with the edge when it converts one).
    var audioEncoder: EdgeAudioEncoder?
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
    /// UDP: the first port of the block held, its sockets (RTP of track n at 2n, RTCP at 2n + 1), the camera's address
    /// (datagrams from elsewhere are dropped), what each track received, and the receiver reports' timer.
    var portBlock: Int?
    var udp: [any Channel] = []
    var peer: SocketAddress?
    var reception: [Int: RTPReceptionStatistics] = [:]
    /// UDP: each track's packets put back in sequence order (a datagram may overtake another).
    var reorder: [Int: RTPReorderBuffer<[UInt8]>] = [:]
    var receiverReports: RepeatedTask?
    var presentation: RTSPClientConnection.Presentation?
    let ssrc = UInt32.random(in: 1 ... .max)

    /// The most RTP packets held before PLAY's answer.
    static let maxEarlyPackets = 1024
}

extension RelaySession {
    func connectRTSPSource() {
        guard case let .rtspPull(url) = source.kind, !end.begun else { return }
        let generation = beginPullConnection()
        source.rtsp = RTSPSource()
        guard options.rtspOverUDP else { return connectRTSP(url, transport: .interleaved, generation) }
        guard let first = engine.rtspPorts.take() else {
            source.pull.lastError = "every RTSP client port (\(engine.settings.rtspUDPPorts)) is held by other UDP pulls"
            return rtspSourceLost(generation)
        }
        source.rtsp.portBlock = first
        let binds = (0..<RTSPPortBlocks.blockSize).map { slot in
            DatagramBootstrap(group: loop)
                // 1 MiB (the kernel's rmem_max allowing): seconds of a camera's RTP wait in the kernel while the loop is
                // busy; the default 208 KiB lost packets, and with them pictures, when a loaded loop fell a second behind.
                .channelOption(.socketOption(.so_rcvbuf), value: 1 << 20)
                .channelInitializer { [self] channel in
                    let handler = RTSPDatagramHandler { [self] event in rtspDatagram(generation, slot: slot, event) }
                    return channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(handler) }
                }
                .bind(host: "0.0.0.0", port: first + slot)
        }
        EventLoopFuture.whenAllSucceed(binds, on: loop).whenComplete { [self] result in
            switch result {
            case let .success(channels):
                guard generation == source.pull.generation, !end.begun else {
                    for channel in channels { channel.close(promise: nil) }
                    return
                }
                source.rtsp.udp = channels
                connectRTSP(url, transport: .udp(firstClientPort: first), generation)
            case let .failure(error):
                for bind in binds { bind.whenSuccess { $0.close(promise: nil) } }
                guard generation == source.pull.generation else { return }
                source.pull.lastError = "cannot take UDP ports \(first)-\(first + RTSPPortBlocks.blockSize - 1) for RTP: \(describeNetworkError(error))"
                rtspSourceLost(generation)
            }
        }
    }

    private func connectRTSP(_ url: RTSPURL, transport: RTSPClientConnection.TransportMode, _ generation: Int) {
        let nonce = (0..<4).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max)) }.joined()
        source.rtsp.connection = RTSPClientConnection(configuration: .init(url: url, transport: transport, userAgent: "Sluice", clientNonce: nonce))
        let handler = RTSPClientHandler { [self] event in rtspEvent(generation, event) }
        handler.pacedReads.pacer = engine.readPacers?.on(loop).value
        source.rtsp.handler = handler
        open(host: url.host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: url.port, secure: url.scheme == "rtsps", handler: handler)
            .whenComplete { [self] result in
                switch result {
                case let .success(channel):
                    if generation == source.pull.generation { source.rtsp.peer = channel.remoteAddress }
                case let .failure(error):
                    if generation == source.pull.generation { source.pull.lastError = describeNetworkError(error) }
                    rtspSourceLost(generation)
                }
            }
    }

    /// A datagram on one of a UDP pull's ports (`slot`: RTP of track n at 2n, RTCP at 2n + 1), or the end of a read burst.
    private func rtspDatagram(_ generation: Int, slot: Int, _ event: RTSPDatagramEvent) {
        guard generation == source.pull.generation, !end.begun else { return }
        switch event {
        case let .datagram(sender, bytes):
            // Only the camera's host may send media into the job (any port: its RTP and RTCP ports may differ).
            guard let peer = source.rtsp.peer, sender.ipAddress == peer.ipAddress else { return }
            source.rtsp.burstBytes += bytes.count
            let track = slot / 2
            let arrival = Int64(RelaySession.now() / 1_000_000)
            if slot % 2 == 0 {
                if let (_, sequence, ssrc) = RTPPacket.peek(bytes) {
                    source.rtsp.reception[track, default: RTPReceptionStatistics()].received(ssrc: ssrc, sequenceNumber: sequence)
                    for packet in source.rtsp.reorder[track, default: RTPReorderBuffer()].push(bytes, sequenceNumber: sequence, arrival: arrival) {
                        rtp(packet, track: track)
                    }
                } else {
                    rtp(bytes, track: track)
                }
            } else {
                rtcp(bytes, track: track)
            }
            releaseHeldRTP(now: arrival)
        case .readComplete:
            deliverRTSPBurst()
        }
    }

    /// UDP packets held for a gap that has now waited long enough go on without it (the depacketizer sees the loss).
    private func releaseHeldRTP(now: Int64) {
        for track in source.rtsp.reorder.keys.sorted() {
            guard let released = source.rtsp.reorder[track]?.release(now: now) else { continue }
            for packet in released { rtp(packet, track: track) }
        }
    }

    /// The housekeeping tick: a UDP camera that went quiet still gets what it held released.
    func rtspHousekeeping() {
        guard !source.rtsp.reorder.isEmpty else { return }
        releaseHeldRTP(now: Int64(RelaySession.now() / 1_000_000))
        deliverRTSPBurst()
    }

    /// Every 5 s, a receiver report of each converted track to the camera's RTCP port (RFC 3550 §6.2: a sender may end
    /// a session whose receiver sends none).
    private func startReceiverReports(_ generation: Int) {
        guard !source.rtsp.udp.isEmpty else { return }
        source.rtsp.receiverReports = loop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(5)) { [self] _ in
            guard generation == source.pull.generation, !end.begun, let presentation = source.rtsp.presentation,
                  let peer = source.rtsp.peer else { return }
            let now = Int64(RelaySession.now() / 1_000_000)
            for (track, entry) in presentation.tracks.enumerated() where 2 * track + 1 < source.rtsp.udp.count {
                guard let port = entry.transport?.serverPort?.rtcp, var reception = source.rtsp.reception[track],
                      let block = reception.reportBlock(now: now), let address = try? SocketAddress(ipAddress: peer.ipAddress ?? "", port: port)
                else { continue }
                source.rtsp.reception[track] = reception
                let report = RTCPCompound.receiverReport(ssrc: source.rtsp.ssrc, blocks: [block])
                let channel = source.rtsp.udp[2 * track + 1]
                channel.writeAndFlush(AddressedEnvelope(remoteAddress: address, data: channel.allocator.buffer(bytes: report)), promise: nil)
            }
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
            // An rtsps:// camera whose certificate was refused: that, not the exchange's "closed during OPTIONS".
            if let error, error.hasPrefix("TLS") { source.pull.lastError = error }
            rtspSourceLost(generation)
        }
    }

    /// Runs one event through the connection's state machine and applies what it says.
    private func apply(rtsp event: RTSPClientConnection.Event, _ generation: Int) {
        guard var connection = source.rtsp.connection.take() else { return }
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
                startReceiverReports(generation)
                source.rtsp.handler?.startPacing()
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
                let format = try RTPTrackFormat(media: track.media, playStartRTPTime: track.rtpInfo?.rtpTime)
                if case .g711 = format.codec, options.edgeAudioEncoder == nil {
                    formats.append(nil)
                    skipped.append("track \(index) (\(track.media.media)): \(format.codec.name), with no AAC encoder in this job")
                    continue
                }
                formats.append(format)
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
            engine.report("\(jobLabel)input \(options.inputName): the camera plays \(carried.joined(separator: " and ")) over \(source.rtsp.udp.isEmpty ? "TCP" : "UDP"), \(timing)"
                          + (skipped.isEmpty ? "" : "; not carried: " + skipped.joined(separator: "; ")))
        }
        source.rtsp.edge = edge
        if let maker = options.edgeAudioEncoder, edge.convertedTracks.contains(where: { if case .g711 = $0.format.codec { true } else { false } }) {
            source.rtsp.audioEncoder = EdgeAudioEncoder(maker: maker)
        }
        source.rtsp.presentation = presentation
        let early = source.rtsp.early
        source.rtsp.early = []
        for held in early { rtp(held.packet, track: held.track) }
    }

    private func rtp(_ packet: [UInt8], track: Int) {
        guard !end.begun else { return }
        // Taken out while it works, so its buffers are held once (a copy left in `source` would make them copy on write).
        guard var edge = source.rtsp.edge.take() else {
            if source.rtsp.early.count < RTSPSource.maxEarlyPackets { source.rtsp.early.append((track, packet)) }
            return
        }
        let arrival = Int64(RelaySession.now() / 1_000_000)
        var tags = edge.feed(packet, track: track, arrival: arrival)
        if let encoder = source.rtsp.audioEncoder {
            for block in edge.takePCM() {
                do {
                    tags += try encoder.encode(block)
                } catch {
                    source.rtsp.edge = edge
                    return finish(.failure(.encode(kind: "audio", stream: track, error)))
                }
            }
        }
        for tag in tags {
            source.rtsp.messages.append(Message(typeID: tag.typeID, timestamp: UInt32(truncatingIfNeeded: tag.timestamp), streamID: 1, payload: tag.data))
        }
        source.rtsp.edge = edge
    }

    /// RTCP from the camera: its sender reports place streams that had no RTP-Info, and time the receiver reports over
    /// UDP; a BYE on every converted track ends the stream (a clean end, as an RTMP unpublish).
    private func rtcp(_ packet: [UInt8], track: Int) {
        let reports = RTCPCompound.senderReports(packet)
        if let report = reports.first {
            source.rtsp.edge?.senderReport(track: track, ntpTime: report.ntpTime, rtpTime: report.rtpTime)
        }
        if !source.rtsp.udp.isEmpty {
            let arrival = Int64(RelaySession.now() / 1_000_000)
            for report in reports where report.ssrc == source.rtsp.reception[track]?.ssrc {
                source.rtsp.reception[track]?.senderReport(ntpTime: report.ntpTime, arrival: arrival)
            }
        }
        guard let edge = source.rtsp.edge, RTCPCompound.saysGoodbye(packet) else { return }
        source.rtsp.goodbyes.insert(track)
        if edge.convertedTracks.allSatisfy({ source.rtsp.goodbyes.contains($0.index) }) {
            input.lastEndClean = true
            deliverRTSPBurst()
            stopRTSPConnection()
        }
    }

    /// What one read burst made, relayed together; the camera's first damage named (read once a burst, not per packet).
    private func deliverRTSPBurst() {
        let bytes = source.rtsp.burstBytes
        guard bytes > 0 || !source.rtsp.messages.isEmpty else { return }
        if !source.rtsp.damageNamed, let statistics = source.rtsp.edge?.statistics, statistics.damageCount > 0 {
            source.rtsp.damageNamed = true
            engine.report("\(jobLabel)input \(options.inputName): the camera's RTP is damaged (\(statistics.damageDescription ?? "")); "
                          + "a lost frame is dropped and the video resumes at the next keyframe, counted until the connection ends")
        }
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
        releaseRTSPPorts()
        source.rtsp = RTSPSource()
        sourceLost(generation, clean: input.lastEndClean)
    }

    /// A UDP pull's sockets closed and its port block given back.
    private func releaseRTSPPorts() {
        source.rtsp.receiverReports?.cancel()
        source.rtsp.receiverReports = nil
        for channel in source.rtsp.udp { channel.close(promise: nil) }
        source.rtsp.udp = []
        if let first = source.rtsp.portBlock { engine.rtspPorts.giveBack(first) }
        source.rtsp.portBlock = nil
    }

    /// TEARDOWN sent (when a session was set up), then the connection closed.
    private func stopRTSPConnection() {
        guard var connection = source.rtsp.connection.take() else { return }
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
        releaseRTSPPorts()
        source.rtsp.handler = nil
    }

    /// The camera's connection was quiet for half the input timeout: closed, and opened again.
    func rtspSourceStalled() {
        source.pull.stalledClose = true
        source.rtsp.handler?.channel?.close(promise: nil)
    }
}
