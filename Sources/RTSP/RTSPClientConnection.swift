// RFC 2326 §A.1 client state machine (Init → Ready → Playing), §10 the methods it sends, §12.37 keeping the session
// alive, §10.12 interleaved RTP; authentication per RFC 7617 (Basic) and RFC 7616 (Digest).
import MediaFormats

/// One RTSP client connection as a state machine: events in (connected, bytes received, the keep-alive timer, the
/// connection closed, a stop), actions out (bytes to send, RTP and RTCP to deliver per track, the presentation once
/// playing, the next keep-alive, a failure). No I/O: the caller owns the socket and the timer and applies the actions.
///
/// It sends OPTIONS, DESCRIBE, one SETUP per audio or video section, then PLAY, one request at a time; a 401 is
/// answered once with the URL's credentials (Digest preferred, SHA-256 over MD5, else Basic).
public struct RTSPClientConnection: Sendable {
    /// The most media sections set up: channels 0...31 on the connection, and no camera sends more.
    public static let maxTracks = 16

    private enum Phase: Sendable, Equatable {
        case idle, options, describe, setup, play, playing, tearingDown, finished

        var name: String {
            switch self {
            case .idle: "connecting"
            case .options: "OPTIONS"
            case .describe: "DESCRIBE"
            case .setup: "SETUP"
            case .play: "PLAY"
            case .playing: "playback"
            case .tearingDown: "TEARDOWN"
            case .finished: "the end"
            }
        }
    }

    private enum Authorization: Sendable, Equatable {
        case none
        case basic(RTSPCredentials)
        case digest(DigestAuthenticator)
    }

    /// The request awaiting its response.
    private struct Pending: Sendable, Equatable {
        var method: RTSPMethod
        var uri: String
        var headers: RTSPHeaders
        var sequenceNumber: Int
        /// Credentials went with it: a 401 now is a refusal.
        var authorized: Bool
        /// A keep-alive, whose refusal ends nothing but a lost session.
        var isKeepAlive: Bool
    }

    public let configuration: Configuration
    private var reader = RTSPMessageReader()
    private var phase = Phase.idle
    private var sequenceNumber = 0
    private var pending: Pending?
    private var authorization = Authorization.none
    /// A stale nonce was answered once already (a second would loop).
    private var renewedStaleNonce = false
    private var keepAliveMethod = RTSPMethod.options
    private var description: SessionDescription?
    private var baseURL = ""
    private var aggregateURL = ""
    private var tracks: [Track] = []
    private var session: RTSPSessionHeader?

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    public mutating func handle(_ event: Event) -> [Action] {
        guard phase != .finished else { return [] }
        switch event {
        case .connected:
            guard phase == .idle else { return [] }
            phase = .options
            return [send(.options, uri: configuration.url.string)]
        case let .received(bytes):
            reader.append(bytes)
            var actions: [Action] = []
            while phase != .finished {
                do {
                    guard let message = try reader.next() else { break }
                    switch message {
                    case let .interleaved(frame): actions += deliver(frame)
                    case let .response(response): actions += handle(response)
                    }
                } catch let error as RTSPError {
                    actions += fail(.malformed(error))
                } catch {
                    actions += fail(.protocolViolation("\(error)"))
                }
            }
            return actions
        case .keepAliveTimer:
            guard phase == .playing else { return [] }
            var actions: [Action] = []
            // One request at a time: a keep-alive still unanswered is enough.
            if pending == nil {
                actions.append(send(keepAliveMethod, uri: aggregateURL, isKeepAlive: true))
            }
            actions.append(.scheduleKeepAlive(seconds: keepAliveInterval))
            return actions
        case .disconnected:
            if phase == .tearingDown {
                phase = .finished
                return [.close]
            }
            return fail(.closedByServer(during: phase.name))
        case .stop:
            guard session != nil, phase != .tearingDown else {
                phase = .finished
                return [.close]
            }
            phase = .tearingDown
            pending = nil
            return [send(.teardown, uri: aggregateURL)]
        }
    }

    /// Half the session timeout, as the server may end the session at the timeout.
    private var keepAliveInterval: Int { max(1, (session?.effectiveTimeout ?? RTSPSessionHeader.defaultTimeout) / 2) }

    // MARK: Responses

    private mutating func handle(_ response: RTSPResponse) -> [Action] {
        guard let request = pending else {
            return fail(.protocolViolation("a response (\(response.status)) with no request outstanding"))
        }
        if let answered = response.sequenceNumber, answered != request.sequenceNumber {
            // The answer to a request abandoned by the stop (a keep-alive in flight) may still come before TEARDOWN's.
            if phase == .tearingDown, answered < request.sequenceNumber { return [] }
            return fail(.protocolViolation("CSeq \(answered) answered while \(request.sequenceNumber) was outstanding"))
        }
        pending = nil
        if response.statusCode == 401 { return unauthorized(response, request: request) }
        guard response.isSuccess else {
            // A server may refuse GET_PARAMETER as a keep-alive and still count it: only a lost session matters.
            if request.isKeepAlive && response.statusCode != 454 { return [] }
            if phase == .tearingDown { return close() }
            return fail(.refused(method: request.method, status: response.status, detail: nil))
        }
        if request.isKeepAlive { return [] }
        switch phase {
        case .options:
            let methods = (response.headers["Public"] ?? "").split(separator: ",").map { String($0).trimmedOfSpaces.uppercased() }
            if methods.contains(RTSPMethod.getParameter.rawValue) { keepAliveMethod = .getParameter }
            phase = .describe
            return [send(.describe, uri: configuration.url.string, headers: ["Accept": "application/sdp"])]
        case .describe:
            return described(response, request: request)
        case .setup:
            return setUp(response)
        case .play:
            guard let description, let session else { return fail(.protocolViolation("PLAY answered before SETUP")) }
            phase = .playing
            // A malformed RTP-Info costs only the common instant it gives: the tracks are then timed by arrival.
            let entries = response.headers["RTP-Info"].flatMap { try? RTSPRTPInfo.parse($0) } ?? []
            for index in tracks.indices { tracks[index].rtpInfo = Self.entry(for: index, of: tracks, in: entries) }
            return [.playing(Presentation(description: description, tracks: tracks, session: session)),
                    .scheduleKeepAlive(seconds: keepAliveInterval)]
        case .tearingDown:
            return close()
        case .idle, .playing, .finished:
            return []
        }
    }

    private mutating func unauthorized(_ response: RTSPResponse, request pending: Pending) -> [Action] {
        let refusal = { (detail: String) in RTSPClientError.refused(method: pending.method, status: response.status, detail: detail) }
        guard let credentials = configuration.url.credentials else { return fail(refusal("and the URL has no credentials")) }
        let challenges: [RTSPAuthenticationChallenge]
        do {
            challenges = try response.headers.values("WWW-Authenticate").flatMap { try RTSPAuthenticationChallenge.parse($0) }
        } catch let error as RTSPError {
            return fail(.malformed(error))
        } catch {
            return fail(.protocolViolation("\(error)"))
        }
        let digests = challenges.filter(\.isDigest).compactMap {
            try? DigestAuthenticator(challenge: $0, credentials: credentials, clientNonce: configuration.clientNonce)
        }
        if pending.authorized {
            // Only a Digest nonce the server calls stale is worth a second try, once.
            let stale = challenges.contains { $0.isDigest && $0.parameters["stale"]?.lowercased() == "true" }
            guard stale, !renewedStaleNonce, let renewed = digests.first else {
                let scheme = if case .basic = authorization { "Basic" } else { "Digest" }
                return fail(refusal("after \(scheme) credentials were sent"))
            }
            renewedStaleNonce = true
            authorization = .digest(renewed)
        } else if let digest = digests.first(where: { $0.algorithm == .sha256 || $0.algorithm == .sha256Session }) ?? digests.first {
            authorization = .digest(digest)
        } else if challenges.contains(where: \.isBasic) {
            authorization = .basic(credentials)
        } else {
            let offered = challenges.map(\.scheme).joined(separator: ", ")
            return fail(refusal("with no Basic or Digest challenge this client answers (offered: \(offered.isEmpty ? "none" : offered))"))
        }
        return [send(pending.method, uri: pending.uri, headers: pending.headers, isKeepAlive: pending.isKeepAlive)]
    }

    private mutating func described(_ response: RTSPResponse, request: Pending) -> [Action] {
        let description: SessionDescription
        do {
            description = try SessionDescription(parsing: String(decoding: response.body, as: UTF8.self))
        } catch let error as MediaFormatError {
            return fail(.malformedDescription(error))
        } catch {
            return fail(.protocolViolation("\(error)"))
        }
        baseURL = response.headers["Content-Base"] ?? response.headers["Content-Location"] ?? request.uri
        aggregateURL = SessionDescription.resolve(control: description.control, base: baseURL)
        let playable = description.media.filter {
            ($0.media == "video" || $0.media == "audio") && $0.transportProtocol.uppercased().hasPrefix("RTP/AVP") && !$0.payloadTypes.isEmpty
        }
        guard !playable.isEmpty else { return fail(.noPlayableTrack) }
        guard playable.count <= Self.maxTracks else {
            return fail(.protocolViolation("\(playable.count) media sections, more than \(Self.maxTracks)"))
        }
        if case let .udp(first) = configuration.transport, first + 2 * playable.count - 1 > 65535 {
            return fail(.protocolViolation("client ports from \(first) for \(playable.count) tracks pass 65535"))
        }
        self.description = description
        tracks = playable.map { Track(media: $0, url: SessionDescription.resolve(control: $0.control, base: baseURL), transport: nil) }
        phase = .setup
        return [setupRequest(track: 0)]
    }

    private mutating func setUp(_ response: RTSPResponse) -> [Action] {
        guard let index = tracks.firstIndex(where: { $0.transport == nil }) else { return [] }
        do {
            if let value = response.headers["Session"] {
                let answered = try RTSPSessionHeader(parsing: value)
                if let session, session.identifier != answered.identifier {
                    return fail(.protocolViolation("SETUP answered session \(answered.identifier) within session \(session.identifier)"))
                }
                // A later SETUP often repeats the identifier alone: the timeout the first one gave still holds.
                session = RTSPSessionHeader(identifier: answered.identifier, timeout: answered.timeout ?? session?.timeout)
            }
            guard session != nil else { return fail(.protocolViolation("SETUP answered without a Session header")) }
            var transport = try response.headers["Transport"].map { try RTSPTransport(parsing: $0) } ?? requestedTransport(track: index)
            if configuration.transport == .interleaved {
                guard transport.isTCP else { return fail(.protocolViolation("SETUP answered \(transport.value) to an interleaved request")) }
                transport.interleaved = transport.interleaved ?? requestedTransport(track: index).interleaved
            }
            tracks[index].transport = transport
        } catch let error as RTSPError {
            return fail(.malformed(error))
        } catch {
            return fail(.protocolViolation("\(error)"))
        }
        if index + 1 < tracks.count { return [setupRequest(track: index + 1)] }
        phase = .play
        return [send(.play, uri: aggregateURL, headers: ["Range": "npt=0.000-"])]
    }

    /// Track `index`'s RTP-Info entry: the one naming its URL (absolute, or a suffix of it), else the entry at its
    /// position when the server gave one per track.
    public static func entry(for index: Int, of tracks: [Track], in entries: [RTSPRTPInfo]) -> RTSPRTPInfo? {
        let url = tracks[index].url
        if let named = entries.first(where: { $0.url == url || (!$0.url.isEmpty && url.hasSuffix("/" + $0.url.drop { $0 == "/" })) }) {
            return named
        }
        let anyNamed = entries.contains { entry in tracks.contains { $0.url == entry.url || $0.url.hasSuffix("/" + entry.url.drop { $0 == "/" }) } }
        return !anyNamed && entries.count == tracks.count ? entries[index] : nil
    }

    // MARK: Requests

    private func requestedTransport(track: Int) -> RTSPTransport {
        switch configuration.transport {
        case .interleaved:
            RTSPTransport(protocolName: "RTP/AVP/TCP", interleaved: .init(2 * track, 2 * track + 1))
        case let .udp(first):
            RTSPTransport(protocolName: "RTP/AVP", clientPort: .init(first + 2 * track, first + 2 * track + 1))
        }
    }

    private mutating func setupRequest(track: Int) -> Action {
        send(.setup, uri: tracks[track].url, headers: ["Transport": requestedTransport(track: track).value])
    }

    /// Numbers, authorizes and records a request; the bytes to send.
    private mutating func send(_ method: RTSPMethod, uri: String, headers extra: RTSPHeaders = [:], isKeepAlive: Bool = false) -> Action {
        sequenceNumber += 1
        var headers = RTSPHeaders()
        headers.append("CSeq", String(sequenceNumber))
        var authorized = true
        switch authorization {
        case .none: authorized = false
        case let .basic(credentials): headers.append("Authorization", credentials.basicAuthorization)
        case var .digest(authenticator):
            headers.append("Authorization", authenticator.authorization(method: method, uri: uri))
            authorization = .digest(authenticator)
        }
        headers.append("User-Agent", configuration.userAgent)
        if let session { headers.append("Session", session.identifier) }
        for field in extra { headers.append(field.name, field.value) }
        pending = Pending(method: method, uri: uri, headers: extra, sequenceNumber: sequenceNumber, authorized: authorized, isKeepAlive: isKeepAlive)
        return .send(RTSPRequest(method: method, uri: uri, headers: headers).serialized)
    }

    private func deliver(_ frame: InterleavedFrame) -> [Action] {
        for (index, track) in tracks.enumerated() {
            guard let channels = track.transport?.interleaved else { continue }
            if Int(frame.channel) == channels.rtp { return [.deliverRTP(track: index, packet: frame.payload)] }
            if Int(frame.channel) == channels.rtcp { return [.deliverRTCP(track: index, packet: frame.payload)] }
        }
        return []
    }

    private mutating func fail(_ error: RTSPClientError) -> [Action] {
        phase = .finished
        pending = nil
        return [.fail(error), .close]
    }

    private mutating func close() -> [Action] {
        phase = .finished
        return [.close]
    }
}
