// WHEP (draft-ietf-wish-whep, the mirror of RFC 9725): viewers of a job's output, each a WebRTC session on the job's loop.
import Foundation
import JobDocument
import MediaFormats
import MediaJob
import NIOCore
import NIOHTTP1
import RTMP
import WebRTC

/// A WHEP output: its route on the shared HTTP port and the viewers it has now. Each viewer is an output of the
/// relay core of its own (`coreIndex`), so it starts at a keyframe (the GOP cache's, at once) and falls behind alone.
final class WHEPOutputLink {
    let index: Int
    let name: String
    let url: WHIPURL
    let token: String?
    var route: WHIPRoute?
    var viewers: [WHEPViewer] = []
    /// Viewers that came and went, and what they were sent: the output's progress.
    var viewersServed = 0
    var bytesSent: Int64 = 0

    init(index: Int, name: String, url: WHIPURL, token: String?) {
        self.index = index
        self.name = name
        self.url = url
        self.token = token
    }

    /// The output's progress: what it sent its viewers; running while the job runs (viewers come and go), finished after.
    func progress(ended: Bool) -> OutputProgress {
        var progress = OutputProgress()
        progress.bytes = bytesSent
        progress.status = ended ? .finished : .running
        return progress
    }
}

/// One viewer's WebRTC session: its transport, the job's media made RTP for it, and its timers.
final class WHEPViewer {
    let resource: String
    let ufrag: String
    let output: Int
    /// Its index in the relay core (from `WHEPViewer.firstCoreIndex` up: never an output's).
    let coreIndex: Int
    let transport: WebRTCTransport
    var media: WebRTCEgressMedia
    var addresses: [TransportAddress: SocketAddress] = [:]
    var connected = false
    /// In the relay core: connected with a selected pair to send to (DTLS can finish before the peer nominates one).
    var joined = false
    /// When DTLS came up (the engine's monotonic nanoseconds), for the line it leaves with.
    var connectedAt: UInt64?
    /// Packets made for it that could not be sealed or addressed (before a selected pair, a failed seal): dropped.
    var unsealed = 0
    /// Datagrams made since the last flush: sent in one hop per burst.
    var pending: [(bytes: [UInt8], to: SocketAddress)] = []

    static let firstCoreIndex = 1_000_000

    init(resource: String, ufrag: String, output: Int, coreIndex: Int, transport: WebRTCTransport, media: WebRTCEgressMedia) {
        self.resource = resource
        self.ufrag = ufrag
        self.output = output
        self.coreIndex = coreIndex
        self.transport = transport
        self.media = media
    }
}

/// The job's tags as its WHEP viewers receive them, made once: the core sends one message to each viewer in turn, so
/// the unit of the last message serves the rest. The packager sees every message some viewer is sent, in order.
struct WHEPUnits {
    private var packager = WebRTCEgressPackager()
    private var last: (message: Message, unit: WebRTCEgressUnit)?

    /// `message`'s unit: the last one's again when it is the same message (its payload the same array, compared at once).
    mutating func unit(of message: Message, type: FLVTagType) -> WebRTCEgressUnit {
        if let last, last.message == message { return last.unit }
        let unit = packager.unit(of: FLVStreamTag(type: type, timestamp: Int64(message.timestamp), data: message.payload))
        last = (message, unit)
        return unit
    }
}

extension RelaySession {
    /// The most viewers one WHEP output serves at once.
    static let maxViewersPerOutput = 500

    /// Claims every WHEP output's path (at `begin`); a path another job serves fails that output's job.
    func registerWHEPOutputs() -> MediaJobError? {
        for output in links.whep {
            switch engine.whip.register(output.url, token: output.token, kind: .whep(output: output.index), session: self) {
            case let .success(route): output.route = route
            case let .failure(error): return error
            }
        }
        return nil
    }

    func whepOutput(_ index: Int) -> WHEPOutputLink? { links.whep.first { $0.index == index } }

    func whepViewer(coreIndex: Int) -> WHEPViewer? {
        coreIndex >= WHEPViewer.firstCoreIndex ? links.whepViewers[coreIndex] : nil
    }

    /// A viewer's offer: answered with the job's H.264 (the profile of its current parameter sets) and Opus, and the
    /// viewer joins the core once DTLS is up.
    func whepOffer(_ text: String, output index: Int, promise: EventLoopPromise<WHIPReply>) {
        guard !end.begun, let output = whepOutput(index) else { return promise.succeed(.refused(.serviceUnavailable, "the job is ending")) }
        guard output.viewers.count < Self.maxViewersPerOutput else {
            return promise.succeed(.refused(.serviceUnavailable, "this output has \(Self.maxViewersPerOutput) viewers, its most"))
        }
        let offer: SessionDescription, certificate: DTLSCertificate, local: WebRTCLocalEndpoint
        switch prepareAnswer(to: text) {
        case let .success(prepared): (offer, certificate, local) = prepared
        case let .failure(refusal): return promise.succeed(refusal.reply)
        }
        let (ufrag, password) = (local.iceUfrag, local.icePassword)
        let stream = "sluice-\(options.jobID ?? "job")"
        let egress = WebRTCEgress(cname: Self.iceText(16), streamID: stream,
                                  video: .init(profileLevelID: currentProfileLevelID(), track: WebRTCOutgoingTrack(ssrc: UInt32.random(in: 1 ... .max), trackID: "video")),
                                  audio: WebRTCOutgoingTrack(ssrc: UInt32.random(in: 1 ... .max), trackID: "audio"))
        let answer: WebRTCAnswer
        do {
            answer = try WebRTCNegotiation(role: .egress(egress), local: local).answer(offer)
        } catch {
            return promise.succeed(.refused(.notAcceptable, "the offer cannot be answered: \(error)"))
        }
        // A viewer that cannot decode the job's video would get a session with nothing to show: refused, saying why.
        if core.videoHeaders[0] != nil, !answer.tracks.contains(where: { $0.kind == .video }) {
            let reasons = answer.rejected.filter { $0.media == "video" }.map(\.reason)
            return promise.succeed(.refused(.notAcceptable, "the offer takes no H.264 this stream can be sent as"
                                            + (reasons.isEmpty ? " (no video m= line)" : ": " + reasons.joined(separator: "; "))))
        }
        let viewer: WHEPViewer
        do {
            let transport = try WebRTCTransport(local: ICECredentials(ufrag: ufrag, pwd: password),
                                                remote: ICECredentials(ufrag: answer.remote.iceUfrag, pwd: answer.remote.icePassword),
                                                certificate: certificate, remoteFingerprint: answer.remote.fingerprint, dtlsRole: .server)
            let media = try WebRTCEgressMedia(tracks: answer.tracks)
            links.nextViewer += 1
            viewer = WHEPViewer(resource: Self.iceText(32), ufrag: ufrag, output: index, coreIndex: WHEPViewer.firstCoreIndex + links.nextViewer,
                                transport: transport, media: media)
        } catch {
            return promise.succeed(.refused(.internalServerError, "the session cannot be set up: \(error)"))
        }
        let bound = NIOLoopBound(viewer, eventLoop: loop)
        engine.webrtcPort.open().hop(to: loop).whenComplete { [self] result in
            switch result {
            case .success:
                let viewer = bound.value
                guard !end.begun, let output = whepOutput(index) else { return promise.succeed(.refused(.serviceUnavailable, "the job is ending")) }
                output.viewers.append(viewer)
                output.viewersServed += 1
                links.whepViewers[viewer.coreIndex] = viewer
                engine.webrtcPort.claim(ufrag: viewer.ufrag, for: self)
                if links.whepTick == nil {
                    links.whepTick = loop.scheduleRepeatedTask(initialDelay: Self.whipTick, delay: Self.whipTick) { [self] _ in whepTick() }
                }
                promise.succeed(.created(answer: answer.description.render(), resource: viewer.resource))
            case let .failure(error):
                promise.succeed(.refused(.serviceUnavailable, "the WebRTC media port \(engine.webrtcPort.port) cannot be had: \(describeNetworkError(error))"))
            }
        }
    }

    /// The profile-level-id of the job's current H.264 parameter sets (constrained baseline 3.1 before any).
    private func currentProfileLevelID() -> H264ProfileLevelID {
        if let header = core.videoHeaders[0], let data = try? FLVVideoData(parsing: header.payload), let track = data.tracks.first,
           let record = try? AVCDecoderConfigurationRecord(parsing: Array(track.payload)), let sps = record.sequenceParameterSets.first, sps.count >= 4 {
            return H264ProfileLevelID(profileIDC: sps[1], constraintFlags: sps[2], levelIDC: sps[3])
        }
        return H264ProfileLevelID(profileIDC: 0x42, constraintFlags: 0xE0, levelIDC: 31)
    }

    func whepDelete(_ resource: String, promise: EventLoopPromise<WHIPReply>) {
        for output in links.whep {
            if let viewer = output.viewers.first(where: { constantTimeEquals($0.resource, resource) }) {
                viewerGone(viewer, why: nil)
                return promise.succeed(.deleted)
            }
        }
        promise.succeed(.refused(.notFound, "no such WHEP session (it ended, or this worker never had it)"))
    }

    /// The viewer a datagram is for: by its source address, or by the ufrag of a Binding request.
    func whepViewer(for datagram: WebRTCReceived) -> WHEPViewer? {
        guard !links.whep.isEmpty, let address = TransportAddress(datagram.source) else { return nil }
        let ufrag = datagram.bytes.first.map { $0 < 4 } == true ? ICEUsername.receiverFragment(ofBindingRequest: datagram.bytes) : nil
        for output in links.whep {
            for viewer in output.viewers where viewer.addresses[address] != nil || viewer.ufrag == ufrag { return viewer }
        }
        return nil
    }

    /// One datagram from a viewer: checks answered, DTLS, its RTCP (NACKs answered, keyframe requests).
    func viewerDatagram(_ viewer: WHEPViewer, _ datagram: WebRTCReceived) {
        guard let address = TransportAddress(datagram.source) else { return }
        if viewer.addresses[address] == nil, viewer.addresses.count < 16 { viewer.addresses[address] = datagram.source }
        let now = RelaySession.now()
        apply(viewer.transport.receive(datagram.bytes, from: address, now: Double(now) / 1e9), to: viewer)
    }

    private func apply(_ output: WebRTCTransportOutput, to viewer: WHEPViewer) {
        for datagram in output.datagrams {
            if let address = viewer.addresses[datagram.destination] { viewer.pending.append((datagram.bytes, address)) }
        }
        for event in output.events {
            switch event {
            case .rtp: break
            case .selected: join(viewer)
            case .connected:
                guard !viewer.connected else { continue }
                viewer.connected = true
                viewer.connectedAt = RelaySession.now()
                join(viewer)
            case let .rtcp(compound):
                for packet in viewer.media.receiveRTCP(compound) { seal(packet, for: viewer) }
                if viewer.media.wantsKeyframe { source.whip.publisher?.media.requestKeyframe() }
            case let .failed(reason):
                viewerGone(viewer, why: reason)
                return
            case .closedByPeer:
                viewerGone(viewer, why: nil)
                return
            }
        }
    }

    /// The viewer joins the core once DTLS is up and a pair is selected. A WHIP publisher is asked for a keyframe, a
    /// round trip away, and the viewer starts there, live; any other source has the GOP cache's keyframe sent at once
    /// (the cache is kept all the time in a job with viewers), a GOP behind live at most, rather than wait up to a GOP.
    private func join(_ viewer: WHEPViewer) {
        guard viewer.connected, !viewer.joined, viewer.transport.selectedAddress != nil else { return }
        viewer.joined = true
        core.addOutput(viewer.coreIndex)
        if let output = whepOutput(viewer.output) {
            engine.report("\(jobLabel)output \(output.name): a WHEP viewer is connected (DTLS-SRTP; \(output.viewers.count) watching)")
        }
        let publisher = source.whip.publisher.flatMap { $0.connected ? $0 : nil }
        apply(core.outputReady(viewer.coreIndex, replaying: publisher == nil))
        publisher?.media.requestKeyframe()
    }

    /// One message the core sends a viewer: its RTP, sealed, waiting for the burst's flush.
    func send(_ message: Message, to viewer: WHEPViewer) {
        guard viewer.joined, let type = FLVTagType(rawValue: message.typeID) else { return }
        let now = Int64(RelaySession.now() / 1_000_000)
        for packet in viewer.media.send(links.whepUnits.unit(of: message, type: type), now: now) { seal(packet, for: viewer) }
    }

    func seal(_ packet: RTPPacket, for viewer: WHEPViewer) {
        guard let sealed = try? viewer.transport.protectRTP(packet), let address = viewer.addresses[sealed.destination] else {
            viewer.unsealed += 1
            return
        }
        whepOutput(viewer.output)?.bytesSent += Int64(sealed.bytes.count)
        viewer.pending.append((sealed.bytes, address))
    }

    /// Every viewer's datagrams of this burst, one hop to the media port.
    func flushViewers() {
        var all: [(bytes: [UInt8], to: SocketAddress)] = []
        for output in links.whep {
            for viewer in output.viewers where !viewer.pending.isEmpty {
                all += viewer.pending
                viewer.pending.removeAll(keepingCapacity: true)
            }
        }
        engine.webrtcPort.send(all)
    }

    /// Every viewer's timers: DTLS retransmission and consent (`poll`), and its sender reports when due.
    private func whepTick() {
        guard !end.begun, !links.whepViewers.isEmpty else {
            links.whepTick?.cancel()
            links.whepTick = nil
            return
        }
        let now = RelaySession.now(), wallclock = Self.ntpNow()
        for output in links.whep {
            // A copy: a viewer whose consent lapsed leaves the output's list while this goes through it.
            for viewer in output.viewers where links.whepViewers[viewer.coreIndex] === viewer {
                apply(viewer.transport.poll(now: Double(now) / 1e9), to: viewer)
                guard viewer.connected else { continue }
                for report in viewer.media.senderReports(now: Int64(now / 1_000_000), wallclock: wallclock) {
                    guard let sealed = try? viewer.transport.protectRTCP(report), let address = viewer.addresses[sealed.destination] else { continue }
                    viewer.pending.append((sealed.bytes, address))
                }
            }
        }
        flushViewers()
    }

    /// A viewer left (DELETE, close_notify) or failed (DTLS, consent): it leaves the core and routes nowhere.
    func viewerGone(_ viewer: WHEPViewer, why: String?) {
        guard let output = whepOutput(viewer.output), let position = output.viewers.firstIndex(where: { $0 === viewer }) else { return }
        output.viewers.remove(at: position)
        links.whepViewers[viewer.coreIndex] = nil
        if viewer.joined { core.removeOutput(viewer.coreIndex) }
        apply(viewer.transport.close(), to: viewer)
        engine.webrtcPort.send(viewer.pending)
        viewer.pending = []
        engine.webrtcPort.release(ufrag: viewer.ufrag, addresses: Array(viewer.addresses.values))
        if let why { engine.report("\(jobLabel)output \(output.name): a WHEP viewer's session ended: \(why)") }
        if let since = viewer.connectedAt {
            let seconds = Double(RelaySession.now() - since) / 1e9, sent = viewer.media.statistics
            engine.report("\(jobLabel)output \(output.name): a WHEP viewer left after \(String(format: "%.1f", seconds)) s: "
                          + "\(sent.videoFramesSent) video frames and \(sent.audioFramesSent) Opus frames sent (\(sent.packetsSent) packets), "
                          + "\(sent.retransmitted) again for NACKs, \(sent.keyframeRequests) keyframe requests, "
                          + "\(sent.framesBeforeKeyframe) video frames before its first keyframe, \(viewer.unsealed) packets not sealed; "
                          + "the job's Opus so far: \(links.whepAudio.passedThrough) frames as the publisher sent them, "
                          + "\(links.whepAudio.frames) made from AAC")
        }
    }

    /// The job ends: every viewer's session closed, the routes given back.
    func closeWHEPOutputs() {
        links.whepTick?.cancel()
        links.whepTick = nil
        for output in links.whep {
            for viewer in output.viewers { viewerGone(viewer, why: nil) }
            if let route = output.route { engine.whip.unregister(route) }
            output.route = nil
        }
    }

    /// Now in NTP's 32.32 format (seconds since 1900), for sender reports.
    static func ntpNow() -> UInt64 {
        let seconds = Date().timeIntervalSince1970 + 2_208_988_800
        let whole = UInt64(seconds)
        return whole << 32 | UInt64((seconds - Double(whole)) * 4_294_967_296)
    }
}
