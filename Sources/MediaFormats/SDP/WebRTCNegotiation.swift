// RFC 8829 §5.3.1 the initial answer; RFC 8843 §7.3 answering BUNDLE; RFC 8842 §5.1 answerer's setup; RFC 8839 §5.3 ice-lite.

/// Answers a WHIP or WHEP offer: a pure function of the offer, the direction we take, and our ICE and DTLS parameters.
/// The worker is ICE-lite, DTLS server (`a=setup:passive`), and carries every track on one BUNDLEd, rtcp-muxed transport.
/// It takes the first acceptable video m= line (H.264; a WHIP publisher offering no H.264, H.265) and the first acceptable audio one (Opus 48000/2); every other
/// m= line is answered with port 0 and listed in `WebRTCAnswer.rejected`.
public struct WebRTCNegotiation: Sendable {
    /// Which way media flows.
    public enum Role: Sendable {
        /// WHIP: the peer publishes, we answer recvonly.
        case ingest
        /// WHEP: we send to the viewer, answer sendonly.
        case egress(WebRTCEgress)
    }

    /// The only fingerprint hash taken: every browser, OBS, GStreamer and aiortc offer it, and one hash is one code path to verify.
    public static let acceptedFingerprintHash = "sha-256"

    public var role: Role
    public var local: WebRTCLocalEndpoint
    /// Answer the rtx payload type paired with the chosen one. Off by default: without rtx a sender retransmits on the
    /// media SSRC and payload type, so the engine handles one SSRC per track.
    public var takesRetransmissionPayloadType: Bool
    /// Answer transport-cc feedback and the transport-wide sequence extension. Off by default: taking them promises
    /// transport-wide feedback, and a publisher that gets none lowers its bitrate.
    public var takesTransportWideCongestionControl: Bool

    public init(role: Role, local: WebRTCLocalEndpoint, takesRetransmissionPayloadType: Bool = false,
                takesTransportWideCongestionControl: Bool = false) {
        self.role = role
        self.local = local
        self.takesRetransmissionPayloadType = takesRetransmissionPayloadType
        self.takesTransportWideCongestionControl = takesTransportWideCongestionControl
    }

    private static let structure = "WebRTC offer"

    /// The answer to `offer`. Throws `.invalid` for an offer WebRTC forbids (no ICE credentials, no fingerprint,
    /// tracks not BUNDLEd) and `.unsupported` for one this worker cannot take (a DTLS role it does not play, no
    /// acceptable track), naming what was wrong.
    public func answer(_ offer: SessionDescription) throws -> WebRTCAnswer {
        let bundle = offer.bundleGroup
        var accepted: [(index: Int, media: MediaDescription, track: WebRTCNegotiatedTrack, choice: WebRTCCodecChoice)] = []
        var rejected: [WebRTCRejectedMedia] = []
        for (index, media) in offer.media.enumerated() {
            switch take(media, in: offer, bundle: bundle, taken: accepted.map(\.track.kind)) {
            case let .success((track, choice)): accepted.append((index, media, track, choice))
            case let .failure(refusal):
                rejected.append(WebRTCRejectedMedia(index: index, media: media.media, mid: media.mid, reason: refusal.reason))
            }
        }
        guard let first = accepted.first else {
            let reasons = rejected.map { "m= line \($0.index + 1) (\($0.media)\($0.mid.map { " mid \($0)" } ?? "")): \($0.reason)" }
            throw MediaFormatError.unsupported(structure: Self.structure,
                                               reason: "nothing acceptable: " + (reasons.isEmpty ? "no m= lines" : reasons.joined(separator: "; ")))
        }
        if bundle == nil, accepted.count > 1 {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "no a=group:BUNDLE over mids \(accepted.map(\.track.mid).joined(separator: ", ")); this worker carries every track on one transport")
        }
        let remote = try remoteTransport(offer.transport(of: first.media), mid: first.track.mid)

        var sections: [MediaDescription] = []
        var tracks: [WebRTCNegotiatedTrack] = []
        for (index, media) in offer.media.enumerated() {
            if let taken = accepted.first(where: { $0.index == index }) {
                sections.append(answerSection(for: media, track: taken.track, choice: taken.choice, carriesCandidates: index == first.index))
                tracks.append(taken.track)
            } else {
                // A rejected section keeps our transport attributes: aiortc and webrtcbin read ICE credentials, the
                // fingerprint and the setup role from every m= section, a rejected one included, and refuse the answer
                // without them (JSEP, RFC 8829 §5.3.1, leaves them optional).
                sections.append(MediaDescription(media: media.media, port: 0, transportProtocol: media.transportProtocol,
                                                 payloadTypes: media.payloadTypes, formats: media.formats,
                                                 connection: SDPConnection(address: "0.0.0.0"), mid: media.mid,
                                                 transport: TransportAttributes(iceUfrag: local.iceUfrag, icePassword: local.icePassword,
                                                                                fingerprints: [local.fingerprint], setup: .passive)))
            }
        }
        let description = SessionDescription(
            origin: SDPOrigin(sessionID: local.sessionID, sessionVersion: local.sessionVersion), sessionName: "-", iceLite: true,
            groups: bundle == nil ? [] : [SDPGroup(semantics: "BUNDLE", identificationTags: tracks.map(\.mid))], media: sections)
        return WebRTCAnswer(description: description, tracks: tracks, rejected: rejected, remote: remote)
    }

    /// The track `media` becomes, or why it is rejected.
    private func take(_ media: MediaDescription, in offer: SessionDescription, bundle: SDPGroup?,
                      taken: [WebRTCNegotiatedTrack.Kind]) -> Result<(WebRTCNegotiatedTrack, WebRTCCodecChoice), WebRTCCodecChoice.Refusal> {
        func refuse(_ reason: String) -> Result<(WebRTCNegotiatedTrack, WebRTCCodecChoice), WebRTCCodecChoice.Refusal> { .failure(.init(reason: reason)) }
        guard let kind = WebRTCNegotiatedTrack.Kind(rawValue: media.media) else {
            return refuse("\(media.media) m= lines (\(media.transportProtocol)) are not taken; this worker carries audio and video")
        }
        guard media.carriesRTP else { return refuse("protocol \(media.transportProtocol) is not RTP") }
        guard media.port != 0 || media.bundleOnly else { return refuse("the offer itself rejects it (port 0)") }
        guard let mid = media.mid else { return refuse("no a=mid") }
        if let bundle, !bundle.identificationTags.contains(mid) { return refuse("mid \(mid) is not in the offer's BUNDLE group") }
        guard !taken.contains(kind) else { return refuse("a second \(kind.rawValue) m= line; this worker takes the first") }
        let offered = offer.direction(of: media)
        let ours: MediaDirection
        var sending: H264ProfileLevelID?
        var source: WebRTCOutgoingTrack?
        switch role {
        case .ingest:
            guard offered.sends else { return refuse("offered \(offered.rawValue); WHIP ingest receives, so the publisher must send") }
            ours = .recvonly
        case let .egress(egress):
            guard offered.receives else { return refuse("offered \(offered.rawValue); WHEP sends, so the viewer must receive") }
            ours = .sendonly
            switch kind {
            case .video:
                guard let video = egress.video else { return refuse("this stream has no video") }
                sending = video.profileLevelID
                source = video.track
            case .audio:
                guard let audio = egress.audio else { return refuse("this stream has no audio") }
                source = audio
            }
        }
        guard media.rtcpMux else { return refuse("no a=rtcp-mux; this worker carries RTCP on the RTP port") }
        let choice: WebRTCCodecChoice
        switch WebRTCCodecChoice.choose(in: media, kind: kind, sending: sending) {
        case let .success(chosen): choice = chosen
        case let .failure(refusal): return .failure(refusal)
        }
        let type = choice.payloadType
        let feedback = media.rtcpFeedback.filter { $0.applies(to: type) }
        func offers(_ type: String, _ parameter: String? = nil) -> Bool { feedback.contains { $0.type == type && $0.parameter == parameter } }
        let rtx = takesRetransmissionPayloadType ? media.payloadTypes.first { candidate in
            media.rtpMaps[candidate].map { WebRTCCodec(encodingName: $0.encodingName) == .rtx } == true
                && media.formatParameters[candidate]?["apt"] == String(type)
        } : nil
        let fid = media.ssrcGroups.first { $0.semantics == "FID" && $0.ssrcs.count >= 2 }
        var ssrcs: [UInt32] = []
        for attribute in media.ssrcAttributes where !ssrcs.contains(attribute.ssrc) { ssrcs.append(attribute.ssrc) }
        let rtxSSRCs = Set(media.ssrcGroups.filter { $0.semantics == "FID" }.flatMap { $0.ssrcs.dropFirst() })
        let extensions = offer.headerExtensions + media.headerExtensions
        let transportCC = takesTransportWideCongestionControl && offers("transport-cc")
        let track = WebRTCNegotiatedTrack(
            mid: mid, kind: kind, codec: WebRTCCodec(encodingName: choice.map.encodingName), payloadType: type,
            clockRate: choice.map.clockRate, channels: choice.map.channels, formatParameters: media.formatParameters[type] ?? [:],
            rtxPayloadType: rtx, nack: offers("nack"), pictureLossIndication: offers("nack", "pli"), fullIntraRequest: offers("ccm", "fir"),
            transportWideCongestionControl: transportCC, direction: ours,
            remoteSSRCs: ssrcs.filter { !rtxSSRCs.contains($0) }, remoteRTXSSRC: fid?.ssrcs[1],
            midExtensionID: extensions.first { $0.uri == RTPHeaderExtensionMap.midURI }?.identifier,
            transportWideSequenceExtensionID: transportCC
                ? extensions.first { $0.uri == RTPHeaderExtensionMap.transportWideSequenceNumberURI }?.identifier : nil,
            localSSRC: source?.ssrc, localRTXSSRC: rtx == nil ? nil : source?.rtxSSRC)
        return .success((track, choice))
    }

    /// The answer's section for an accepted track, written from the track's negotiated facts so the two cannot disagree.
    private func answerSection(for media: MediaDescription, track: WebRTCNegotiatedTrack, choice: WebRTCCodecChoice,
                               carriesCandidates: Bool) -> MediaDescription {
        let type = track.payloadType
        var types = [type]
        var maps = [type: choice.map]
        var parameters: [UInt8: [String: String]] = [:]
        if let fmtp = media.formatParameters[type] { parameters[type] = fmtp }
        if let rtx = track.rtxPayloadType, let map = media.rtpMaps[rtx] {
            types.append(rtx)
            maps[rtx] = map
            parameters[rtx] = ["apt": String(type)]
        }
        var feedback: [RTCPFeedbackAttribute] = []
        if track.nack { feedback.append(RTCPFeedbackAttribute(payloadType: type, type: "nack")) }
        if track.pictureLossIndication { feedback.append(RTCPFeedbackAttribute(payloadType: type, type: "nack", parameter: "pli")) }
        if track.fullIntraRequest { feedback.append(RTCPFeedbackAttribute(payloadType: type, type: "ccm", parameter: "fir")) }
        if track.transportWideCongestionControl { feedback.append(RTCPFeedbackAttribute(payloadType: type, type: "transport-cc")) }
        var extensions: [RTPHeaderExtensionMap] = []
        if let id = track.midExtensionID { extensions.append(RTPHeaderExtensionMap(identifier: id, uri: RTPHeaderExtensionMap.midURI)) }
        if let id = track.transportWideSequenceExtensionID {
            extensions.append(RTPHeaderExtensionMap(identifier: id, uri: RTPHeaderExtensionMap.transportWideSequenceNumberURI))
        }
        var streams: [MediaStreamIdentification] = []
        var groups: [SSRCGroup] = []
        var sources: [SSRCAttribute] = []
        if case let .egress(egress) = role, let ssrc = track.localSSRC {
            let trackID = track.kind == .video ? egress.video?.track.trackID : egress.audio?.trackID
            streams.append(MediaStreamIdentification(streamID: egress.streamID, trackID: trackID))
            if let rtxSSRC = track.localRTXSSRC { groups.append(SSRCGroup(semantics: "FID", ssrcs: [ssrc, rtxSSRC])) }
            for source in [ssrc] + (track.localRTXSSRC.map { [$0] } ?? []) {
                sources.append(SSRCAttribute(ssrc: source, name: "cname", value: egress.cname))
            }
        }
        let candidates = carriesCandidates
            ? local.addresses.enumerated().map { ICECandidate.host(address: $0.element, port: local.port, rank: $0.offset).value } : []
        return MediaDescription(
            media: media.media, port: local.port, transportProtocol: media.transportProtocol, payloadTypes: types, rtpMaps: maps,
            formatParameters: parameters, connection: SDPConnection(address: local.addresses.first ?? "0.0.0.0"), mid: track.mid,
            direction: track.direction,
            transport: TransportAttributes(iceUfrag: local.iceUfrag, icePassword: local.icePassword, fingerprints: [local.fingerprint],
                                           setup: .passive),
            rtcpMux: true, rtcpReducedSize: media.rtcpReducedSize, rtcpFeedback: feedback, headerExtensions: extensions,
            mediaStreams: streams, ssrcGroups: groups, ssrcAttributes: sources, candidates: candidates, endOfCandidates: carriesCandidates)
    }

    /// The peer's credentials, fingerprint and role for the BUNDLE transport (the first accepted section's view).
    private func remoteTransport(_ transport: TransportAttributes, mid: String) throws -> WebRTCRemoteTransport {
        guard let ufrag = transport.iceUfrag, !ufrag.isEmpty, let password = transport.icePassword, !password.isEmpty else {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "no a=ice-ufrag and a=ice-pwd at session level or in mid \(mid)")
        }
        guard !transport.fingerprints.isEmpty else {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "no a=fingerprint at session level or in mid \(mid)")
        }
        guard let fingerprint = transport.fingerprints.first(where: { $0.hashFunction == Self.acceptedFingerprintHash }) else {
            let offered = transport.fingerprints.map(\.hashFunction).joined(separator: ", ")
            throw MediaFormatError.unsupported(structure: Self.structure, reason: "a=fingerprint uses \(offered); this worker accepts \(Self.acceptedFingerprintHash)")
        }
        guard fingerprint.digest.count == 32 else {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "the sha-256 fingerprint has \(fingerprint.digest.count) bytes, not 32")
        }
        switch transport.setup {
        case nil, .actpass, .active: break
        case .passive:
            throw MediaFormatError.unsupported(structure: Self.structure, reason: "a=setup:passive asks this worker to be the DTLS client; it only answers a=setup:passive itself (offer actpass or active)")
        case .holdconn:
            throw MediaFormatError.unsupported(structure: Self.structure, reason: "a=setup:holdconn holds the DTLS connection; this worker needs it now")
        }
        return WebRTCRemoteTransport(iceUfrag: ufrag, icePassword: password, fingerprint: fingerprint, setup: transport.setup,
                                     iceOptions: transport.iceOptions)
    }
}

/// Our side of the transport: ICE-lite credentials, the DTLS certificate's fingerprint, and the host addresses of the
/// one UDP port every session shares.
public struct WebRTCLocalEndpoint: Sendable, Equatable {
    public var iceUfrag: String
    public var icePassword: String
    /// SHA-256 of our DTLS certificate.
    public var fingerprint: DTLSFingerprint
    /// The addresses announced as host candidates, most preferred first.
    public var addresses: [String]
    public var port: Int
    /// The o= line's session id (RFC 8829 §5.2.1: random, under 2^63) and version.
    public var sessionID: UInt64
    public var sessionVersion: UInt64

    public init(iceUfrag: String, icePassword: String, fingerprint: DTLSFingerprint, addresses: [String], port: Int,
                sessionID: UInt64, sessionVersion: UInt64 = 1) {
        self.iceUfrag = iceUfrag
        self.icePassword = icePassword
        self.fingerprint = fingerprint
        self.addresses = addresses
        self.port = port
        self.sessionID = sessionID
        self.sessionVersion = sessionVersion
    }
}

/// What a WHEP output sends: its tracks' SSRCs and the names a browser groups them by.
public struct WebRTCEgress: Sendable, Equatable {
    /// Our H.264 stream and the track carrying it.
    public struct Video: Sendable, Equatable {
        /// The stream's profile-level-id: the answer takes a payload type whose decoder can play it.
        public var profileLevelID: H264ProfileLevelID
        public var track: WebRTCOutgoingTrack

        public init(profileLevelID: H264ProfileLevelID, track: WebRTCOutgoingTrack) {
            self.profileLevelID = profileLevelID
            self.track = track
        }
    }

    /// RFC 7022 §4.2 CNAME shared by our sources.
    public var cname: String
    /// The msid stream id shared by our tracks.
    public var streamID: String
    /// nil when the stream has no video: a video m= line is then rejected.
    public var video: Video?
    /// nil when the stream has no audio (Opus): an audio m= line is then rejected.
    public var audio: WebRTCOutgoingTrack?

    public init(cname: String, streamID: String, video: Video?, audio: WebRTCOutgoingTrack?) {
        self.cname = cname
        self.streamID = streamID
        self.video = video
        self.audio = audio
    }
}

/// One track we send.
public struct WebRTCOutgoingTrack: Sendable, Equatable {
    public var ssrc: UInt32
    /// Used only when the negotiation takes rtx.
    public var rtxSSRC: UInt32?
    /// The msid track id.
    public var trackID: String

    public init(ssrc: UInt32, rtxSSRC: UInt32? = nil, trackID: String) {
        self.ssrc = ssrc
        self.rtxSSRC = rtxSSRC
        self.trackID = trackID
    }
}
