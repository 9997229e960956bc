// RFC 9725 §4.2–4.3: a WHIP job's publisher, from its offer to its DELETE, on the job's loop.
import Foundation
import JobDocument
import MediaFormats
import MediaJob
import NIOCore
import NIOHTTP1
import RTMP
import WebRTC

/// A WHIP source: the job's route on the shared HTTP port, and the publisher whose offer it answered. Its decrypted
/// RTP becomes the relay's FLV tags at the edge (`WebRTCIngestMedia`, over the same converter as an RTSP camera's), so
/// everything after `deliver` is the same as for RTMP, SRT and RTSP.
struct WHIPSource {
    var route: WHIPRoute?
    var publisher: WHIPPublisher?
    /// Tags of one burst of datagrams, and the bytes it read.
    var messages: [Message] = []
    var burstBytes = 0
}

/// One publisher's WebRTC session: the transport (ICE-lite, DTLS, SRTP), the media edge, and its Opus made AAC.
/// A class: the transport holds C state that is never copied; it lives on the job's loop only.
final class WHIPPublisher {
    /// The last segment of its Location: what a DELETE names.
    let resource: String
    /// Our ICE ufrag, by which the media port routes its checks.
    let ufrag: String
    let transport: WebRTCTransport
    var media: WebRTCIngestMedia
    /// The negotiated Opus track's channels, when there is one and the job encodes it to AAC.
    var audio: OpusAudioTranscoder?
    /// Where each transport address it used is, as a socket address (the selected one is sent to).
    var addresses: [TransportAddress: SocketAddress] = [:]
    var connected = false
    /// When DTLS completed (the engine's uptime clock), for the session's summary.
    var connectedAt: UInt64 = 0
    /// When the publisher's last datagram was read (the engine's uptime clock).
    var lastDatagramAt: UInt64 = 0
    /// When its DELETE came: the session lingers to take what was sent before it (`RelaySession.lingerOver`).
    var deletedAt: UInt64?
    var tick: RepeatedTask?
    /// What the answer carries and refused, for the job's log.
    let summary: String

    init(resource: String, ufrag: String, transport: WebRTCTransport, media: WebRTCIngestMedia, summary: String) {
        self.resource = resource
        self.ufrag = ufrag
        self.transport = transport
        self.media = media
        self.summary = summary
    }
}

/// The AAC tags of one Opus track: a transcoder from the job's `edgeAudioEncoder`, the sequence header before the
/// first frame.
///
/// The AAC has the channels the publisher sends. WebRTC's rtpmap always says `opus/48000/2` (RFC 7587 §7), whatever is
/// sent; a browser sends mono unless told it may send stereo. So unless the offer's fmtp says stereo (`sprop-stereo=1`
/// or `stereo=1`), the first packet's TOC byte (RFC 6716 §3.1, its `s` bit) decides, before anything was encoded: a
/// mono publisher's sound is not made a stereo AAC of twice the bits (and twice the encoder's work).
final class OpusAudioTranscoder {
    private(set) var transcoder: any OpusAudioTranscoding
    private(set) var channels: Int
    /// What makes a mono transcoder if the first packet is mono; nil once the channels are settled.
    private var remake: ((Int) throws(EncodeError) -> any OpusAudioTranscoding)?
    var sentConfiguration = false

    /// - Parameters:
    ///   - channels: the negotiated channels (the rtpmap's, 1 or 2).
    ///   - signalledStereo: the offer's fmtp says the publisher sends stereo: the first packet does not decide.
    ///   - make: makes a transcoder for a channel count (the job's edge maker).
    init(channels: Int, signalledStereo: Bool, make: @escaping (Int) throws(EncodeError) -> any OpusAudioTranscoding) throws(EncodeError) {
        self.channels = channels
        transcoder = try make(channels)
        remake = signalledStereo || channels == 1 ? nil : make
    }

    /// Whether an Opus fmtp says the sender sends stereo (RFC 7587 §6.1: `sprop-stereo`, and `stereo`, which some
    /// publishers write of themselves).
    static func signalsStereo(_ formatParameters: [String: String]) -> Bool {
        formatParameters["sprop-stereo"] == "1" || formatParameters["stereo"] == "1"
    }

    /// The AAC tags an Opus tag completes; other tags (video, an OpusHead) are the caller's.
    func tags(for tag: FLVStreamTag) throws(EncodeError) -> [FLVStreamTag] {
        guard let data = try? FLVAudioData(parsing: tag.data), data.packetType == .codedFrames, let track = data.tracks.first else { return [] }
        if let make = remake, let toc = track.payload.first {
            remake = nil
            if toc & 0x04 == 0 {
                transcoder = try make(1)
                channels = 1
            }
        }
        let frames = try transcoder.transcode(Array(track.payload), milliseconds: tag.timestamp)
        guard let first = frames.first else { return [] }
        var tags: [FLVStreamTag] = []
        if !sentConfiguration {
            sentConfiguration = true
            tags.append(FLVStreamTag(type: .audio, timestamp: first.milliseconds, data: FLVAudioTagHeader.aacBody(.sequenceHeader, transcoder.audioSpecificConfig)))
        }
        for frame in frames {
            tags.append(FLVStreamTag(type: .audio, timestamp: frame.milliseconds, data: FLVAudioTagHeader.aacBody(.raw, frame.frame)))
        }
        return tags
    }
}

/// A WHIP or WHEP request refused before an answer was made.
struct WHIPRefusal: Error {
    let reply: WHIPReply
}

extension RelaySession {
    /// How often a publisher's timers run: NACKs due again, packets whose gap was given up, PLI, receiver reports,
    /// DTLS retransmission and consent.
    static let whipTick = TimeAmount.milliseconds(20)

    /// A publisher's offer: answered with ours, and the publisher that posted it takes the job (one that was publishing
    /// is closed: the token is what proves a publisher, and a browser that reloads its page posts again).
    func whipOffer(_ text: String, promise: EventLoopPromise<WHIPReply>) {
        guard !end.begun, source.whip.route != nil else { return promise.succeed(.refused(.serviceUnavailable, "the job is ending")) }
        let offer: SessionDescription, certificate: DTLSCertificate, local: WebRTCLocalEndpoint
        switch prepareAnswer(to: text) {
        case let .success(prepared): (offer, certificate, local) = prepared
        case let .failure(refusal): return promise.succeed(refusal.reply)
        }
        let (ufrag, password) = (local.iceUfrag, local.icePassword)
        let answer: WebRTCAnswer
        do {
            answer = try WebRTCNegotiation(role: .ingest, local: local).answer(offer)
        } catch {
            return promise.succeed(.refused(.notAcceptable, "the offer cannot be answered: \(error)"))
        }
        let publisher: WHIPPublisher
        do {
            let transport = try WebRTCTransport(local: ICECredentials(ufrag: ufrag, pwd: password),
                                                remote: ICECredentials(ufrag: answer.remote.iceUfrag, pwd: answer.remote.icePassword),
                                                certificate: certificate, remoteFingerprint: answer.remote.fingerprint, dtlsRole: .server)
            let media = try WebRTCIngestMedia(tracks: answer.tracks, localSSRC: UInt32.random(in: 1 ... .max))
            let carried = answer.tracks.map { "\($0.codec) (\($0.kind.rawValue))" }.joined(separator: " and ")
            let refused = answer.rejected.map { "\($0.media): \($0.reason)" }
            publisher = WHIPPublisher(resource: Self.iceText(32), ufrag: ufrag, transport: transport, media: media,
                                      summary: carried + (refused.isEmpty ? "" : "; not carried: " + refused.joined(separator: "; ")))
            if let opus = answer.tracks.first(where: { $0.codec == .opus }), let maker = options.edgeAudioEncoder {
                publisher.audio = try OpusAudioTranscoder(channels: opus.channels ?? 2, signalledStereo: OpusAudioTranscoder.signalsStereo(opus.formatParameters)) {
                    (channels: Int) throws(EncodeError) in try maker.makeOpusTranscoder(channels: channels)
                }
            }
        } catch {
            return promise.succeed(.refused(.internalServerError, "the session cannot be set up: \(error)"))
        }
        let bound = NIOLoopBound(publisher, eventLoop: loop)
        engine.webrtcPort.open().hop(to: loop).whenComplete { [self] result in
            switch result {
            case .success:
                guard !end.begun else { return promise.succeed(.refused(.serviceUnavailable, "the job is ending")) }
                if source.whip.publisher != nil { whipPublisherGone(clean: true, why: nil) }
                attach(bound.value)
                promise.succeed(.created(answer: answer.description.render(), resource: bound.value.resource))
            case let .failure(error):
                promise.succeed(.refused(.serviceUnavailable, "the WebRTC media port \(engine.webrtcPort.port) cannot be had: \(describeNetworkError(error))"))
            }
        }
    }

    private func attach(_ publisher: WHIPPublisher) {
        source.whip.publisher = publisher
        engine.webrtcPort.claim(ufrag: publisher.ufrag, for: self)
        input.connections += 1
        timeline.beginSegment()
        let bound = NIOLoopBound(publisher, eventLoop: loop)
        publisher.tick = loop.scheduleRepeatedTask(initialDelay: Self.whipTick, delay: Self.whipTick) { [self] _ in whipTick(bound.value) }
        engine.report("\(jobLabel)input \(options.inputName): a WHIP publisher offered \(publisher.summary); answered, waiting for ICE and DTLS")
    }

    /// The publisher's DELETE: its session ends, as an RTMP unpublish ends a stream. It is answered at once; a connected
    /// session first lingers to take what the publisher sent before it (datagrams still in the port's socket or on
    /// their way to this loop, which a worker behind its publisher has not read yet), until none came for
    /// `whipLingerQuiet` or for `whipLingerMost` in all. The port routes its datagrams here until then; a new offer
    /// ends the linger at once.
    func whipDelete(_ resource: String, promise: EventLoopPromise<WHIPReply>) {
        guard let publisher = source.whip.publisher, constantTimeEquals(publisher.resource, resource) else {
            return promise.succeed(.refused(.notFound, "no such WHIP session (it ended, or this worker never had it)"))
        }
        if publisher.connected {
            if publisher.deletedAt == nil { publisher.deletedAt = RelaySession.now() }
        } else {
            whipPublisherGone(clean: true, why: nil)
        }
        promise.succeed(.deleted)
    }

    /// How long a deleted publisher's session waits for a datagram before it closes: long enough for a worker whose
    /// loops are starved to read on (a reconnecting publisher's offer ends the wait at once).
    static let whipLingerQuiet: UInt64 = 1_000_000_000
    /// The longest a deleted publisher's session lingers (one that keeps sending after its DELETE is cut off there).
    static let whipLingerMost: UInt64 = 5_000_000_000

    /// Whether a deleted publisher's linger is over at `now`.
    static func lingerOver(deletedAt: UInt64, lastDatagramAt: UInt64, now: UInt64) -> Bool {
        now &- deletedAt >= whipLingerMost || now &- max(deletedAt, lastDatagramAt) >= whipLingerQuiet
    }

    /// Datagrams the media port routed here in one burst: a viewer's go to it, the rest to the publisher.
    func webrtcDatagrams(_ datagrams: [WebRTCReceived]) {
        guard !end.begun else { return }
        var publisherDatagrams: [WebRTCReceived] = []
        for datagram in datagrams {
            if let viewer = whepViewer(for: datagram) {
                viewerDatagram(viewer, datagram)
            } else {
                publisherDatagrams.append(datagram)
            }
        }
        if !publisherDatagrams.isEmpty { publisherBurst(publisherDatagrams) }
        if !links.whep.isEmpty { flushViewers() }
    }

    private func publisherBurst(_ datagrams: [WebRTCReceived]) {
        guard let publisher = source.whip.publisher else { return }
        let now = RelaySession.now()
        let seconds = Double(now) / 1e9
        publisher.lastDatagramAt = now
        var outgoing: [(bytes: [UInt8], to: SocketAddress)] = []
        for datagram in datagrams {
            guard let address = TransportAddress(datagram.source) else { continue }
            if publisher.addresses[address] == nil, publisher.addresses.count < 16 { publisher.addresses[address] = datagram.source }
            source.whip.burstBytes += datagram.bytes.count
            let output = publisher.transport.receive(datagram.bytes, from: address, now: seconds)
            route(output, of: publisher, now: now, into: &outgoing)
            guard source.whip.publisher === publisher else { break }
        }
        engine.webrtcPort.send(outgoing)
        deliverWHIPBurst()
    }

    /// What the transport said: datagrams to send, and its events (media to the edge, the end of the session).
    private func route(_ output: WebRTCTransportOutput, of publisher: WHIPPublisher, now: UInt64, into outgoing: inout [(bytes: [UInt8], to: SocketAddress)]) {
        for datagram in output.datagrams {
            if let address = publisher.addresses[datagram.destination] { outgoing.append((datagram.bytes, address)) }
        }
        let milliseconds = Int64(now / 1_000_000)
        for event in output.events {
            switch event {
            case .selected: break
            case let .connected(profile):
                publisher.connected = true
                publisher.connectedAt = now
                engine.report("\(jobLabel)input \(options.inputName): the WHIP publisher is connected (DTLS-SRTP, \(profile))")
                publisher.media.requestKeyframe()
            case let .rtp(packet):
                let (tags, rtcp) = publisher.media.receive(packet.serialized, now: milliseconds)
                take(tags, of: publisher)
                protect(rtcp, of: publisher, into: &outgoing)
            case let .rtcp(compound):
                publisher.media.receiveRTCP(compound, now: milliseconds)
            case let .failed(reason):
                whipPublisherGone(clean: false, why: reason)
                return
            case .closedByPeer:
                whipPublisherGone(clean: true, why: nil)
                return
            }
        }
    }

    /// The edge's tags become the burst's messages; Opus is made AAC when the job has an encoder, and goes to the job's
    /// WHEP viewers as it came.
    private func take(_ tags: [FLVStreamTag], of publisher: WHIPPublisher) {
        for tag in tags {
            var converted = [tag]
            if let audio = publisher.audio, tag.type == .audio {
                if !links.whep.isEmpty { whepPublisherOpus(tag) }
                do {
                    converted = try audio.tags(for: tag)
                } catch {
                    return finish(.failure(.encode(kind: "audio", stream: 1, error)))
                }
            }
            for tag in converted {
                source.whip.messages.append(Message(typeID: tag.typeID, timestamp: UInt32(truncatingIfNeeded: tag.timestamp), streamID: 1, payload: tag.data))
            }
        }
    }

    private func protect(_ rtcp: [[UInt8]], of publisher: WHIPPublisher, into outgoing: inout [(bytes: [UInt8], to: SocketAddress)]) {
        for compound in rtcp {
            guard let sealed = try? publisher.transport.protectRTCP(compound), let address = publisher.addresses[sealed.destination] else { continue }
            outgoing.append((sealed.bytes, address))
        }
    }

    /// The publisher's timers.
    private func whipTick(_ publisher: WHIPPublisher) {
        guard source.whip.publisher === publisher, !end.begun else { return }
        let now = RelaySession.now()
        var outgoing: [(bytes: [UInt8], to: SocketAddress)] = []
        route(publisher.transport.poll(now: Double(now) / 1e9), of: publisher, now: now, into: &outgoing)
        guard source.whip.publisher === publisher else { return engine.webrtcPort.send(outgoing) }
        if publisher.connected {
            let (tags, rtcp) = publisher.media.tick(now: Int64(now / 1_000_000))
            take(tags, of: publisher)
            protect(rtcp, of: publisher, into: &outgoing)
        }
        engine.webrtcPort.send(outgoing)
        deliverWHIPBurst()
        if let deletedAt = publisher.deletedAt, Self.lingerOver(deletedAt: deletedAt, lastDatagramAt: publisher.lastDatagramAt, now: now) {
            whipPublisherGone(clean: true, why: nil)
        }
    }

    private func deliverWHIPBurst() {
        let bytes = source.whip.burstBytes
        guard bytes > 0 || !source.whip.messages.isEmpty else { return }
        source.whip.burstBytes = 0
        let messages = source.whip.messages
        source.whip.messages.removeAll(keepingCapacity: true)
        deliver(messages, receivedAt: measuresLatency ? RelaySession.now() : 0, bytes: bytes)
    }

    /// The publisher left (DELETE, DTLS close_notify), failed (DTLS, consent) or was replaced: its session is closed
    /// and routes nowhere. The job goes on waiting for a publisher until its input timeout, as an RTMP listen job does.
    func whipPublisherGone(clean: Bool, why: String?) {
        guard let publisher = source.whip.publisher else { return }
        source.whip.publisher = nil
        publisher.tick?.cancel()
        var outgoing: [(bytes: [UInt8], to: SocketAddress)] = []
        if publisher.connected {
            // What waits for a gap goes out without it: nothing more will come to fill it.
            let (tags, _) = publisher.media.tick(now: Int64(RelaySession.now() / 1_000_000) + WebRTCIngestMedia.holdMilliseconds + 1)
            take(tags, of: publisher)
        }
        route(publisher.transport.close(), of: publisher, now: RelaySession.now(), into: &outgoing)
        engine.webrtcPort.send(outgoing)
        engine.webrtcPort.release(ufrag: publisher.ufrag, addresses: Array(publisher.addresses.values))
        deliverWHIPBurst()
        input.lastEndClean = clean
        if let why {
            engine.report("\(jobLabel)input \(options.inputName): the WHIP publisher's session ended: \(why)")
            source.pull.lastError = why
        }
        guard publisher.connected else { return }
        // One line per session: what the network lost and what NACKs brought back, and what was lost for good.
        let statistics = publisher.media.statistics
        let (recovered, abandoned) = publisher.media.recovery
        let seconds = Double(RelaySession.now() &- publisher.connectedAt) / 1e9
        engine.report("\(jobLabel)input \(options.inputName): the WHIP session ended after \(String(format: "%.1f", seconds)) s: "
                      + "\(recovered) packets recovered by NACK, \(abandoned) given up"
                      + (statistics.damageCount > 0 ? "; its RTP had \(statistics.damageDescription ?? "")" : "; no frame was damaged"))
    }

    /// The job ends: the publisher's session closed, the route given back.
    func closeWHIPSource() {
        guard case .whipListen = source.kind else { return }
        whipPublisherGone(clean: input.lastEndClean, why: nil)
        if let route = source.whip.route { engine.whip.unregister(route) }
        source.whip.route = nil
    }

    /// What answering any WebRTC offer (WHIP or WHEP) starts with: the offer parsed, the loop's DTLS certificate, and our
    /// side of the transport with fresh ICE credentials; or the reply that refuses it.
    func prepareAnswer(to text: String) -> Result<(SessionDescription, DTLSCertificate, WebRTCLocalEndpoint), WHIPRefusal> {
        let offer: SessionDescription
        do {
            offer = try SessionDescription(parsing: text)
        } catch {
            return .failure(WHIPRefusal(reply: .refused(.badRequest, "the offer is not SDP: \(error)")))
        }
        let certificate: DTLSCertificate
        switch engine.webrtcCertificate(on: loop) {
        case let .success(made): certificate = made
        case let .failure(error): return .failure(WHIPRefusal(reply: .refused(.internalServerError, "this worker cannot do DTLS: \(error)")))
        }
        let local = WebRTCLocalEndpoint(iceUfrag: Self.iceText(8), icePassword: Self.iceText(24), fingerprint: certificate.fingerprint,
                                        addresses: engine.webrtcAddresses, port: engine.settings.webrtcAnnouncedPort ?? engine.webrtcPort.port,
                                        sessionID: UInt64.random(in: 1 ..< (1 << 62)))
        return .success((offer, certificate, local))
    }

    /// ICE ufrags, passwords and resource ids: letters and digits (ice-char without "+" and "/", so they also fit a URL
    /// path), from the system's generator.
    static func iceText(_ count: Int) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        return String((0..<count).map { _ in alphabet[Int.random(in: 0..<alphabet.count)] })
    }
}
