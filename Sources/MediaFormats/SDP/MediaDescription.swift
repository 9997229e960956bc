// RFC 8866 §5.14 media descriptions ("m="), §6.6 rtpmap, §6.15 fmtp; RFC 2326 §C.1.1 control; RFC 8829 §5.8 WebRTC's attributes.

/// One `m=` section: the media, its transport and payload types, each type's `a=rtpmap`, `a=fmtp` and `a=rtcp-fb`, its
/// `a=control` (RTSP), and what WebRTC adds: mid, direction, ICE and DTLS parameters, rtcp-mux, header extensions,
/// sources, msid and candidates.
public struct MediaDescription: Sendable, Equatable {
    /// `a=rtpmap:<payload type> <encoding name>/<clock rate>[/<channels>]`.
    public struct RTPMap: Sendable, Equatable {
        /// As written ("H264", "H265", "mpeg4-generic", "MPEG4-GENERIC"): compare without case.
        public var encodingName: String
        public var clockRate: Int
        /// The encoding parameters of audio: the channel count.
        public var channels: Int?

        public init(encodingName: String, clockRate: Int, channels: Int? = nil) {
            self.encodingName = encodingName
            self.clockRate = clockRate
            self.channels = channels
        }

        /// What follows "a=rtpmap:<payload type> ".
        var value: String { "\(encodingName)/\(clockRate)" + (channels.map { "/\($0)" } ?? "") }
    }

    /// "video", "audio", "application".
    public var media: String
    /// 0 rejects the section, unless `bundleOnly` (RFC 8843 §6).
    public var port: Int
    /// "RTP/AVP", "RTP/AVPF", "RTP/SAVP", "UDP/TLS/RTP/SAVPF", "UDP/DTLS/SCTP".
    public var transportProtocol: String
    /// The formats of the m= line under an RTP profile: its payload types.
    public var payloadTypes: [UInt8]
    /// The formats of the m= line under another protocol ("webrtc-datachannel"), as written.
    public var formats: [String]
    /// `a=rtpmap` by payload type.
    public var rtpMaps: [UInt8: RTPMap]
    /// `a=fmtp` parameters by payload type, names lowercased (the H.264, H.265 and mpeg4-generic names are case-insensitive).
    public var formatParameters: [UInt8: [String: String]]
    /// `a=control`, relative or absolute: `SessionDescription.resolve(control:base:)` makes it the track's URL.
    public var control: String?
    /// Media-level `c=`.
    public var connection: SDPConnection?
    /// `a=mid` (RFC 5888 §4): the name BUNDLE groups and the mid header extension use.
    public var mid: String?
    /// The media-level direction; nil defers to the session's, then sendrecv.
    public var direction: MediaDirection?
    /// Media-level ICE and DTLS attributes; `SessionDescription.transport(of:)` adds the session's.
    public var transport: TransportAttributes
    /// `a=bundle-only` (RFC 8843 §6): port 0 yet offered inside the BUNDLE group.
    public var bundleOnly: Bool
    /// `a=rtcp-mux` (RFC 5761 §5.1.3): RTCP on the RTP port.
    public var rtcpMux: Bool
    /// `a=rtcp-rsize` (RFC 5506 §5): RTCP packets need not be compound.
    public var rtcpReducedSize: Bool
    /// `a=rtcp-fb`, the "*" ones first, then by payload type in the m= line's order.
    public var rtcpFeedback: [RTCPFeedbackAttribute]
    /// `a=extmap`, in order.
    public var headerExtensions: [RTPHeaderExtensionMap]
    /// `a=msid`, in order.
    public var mediaStreams: [MediaStreamIdentification]
    /// `a=ssrc-group`, in order.
    public var ssrcGroups: [SSRCGroup]
    /// `a=ssrc`, in order.
    public var ssrcAttributes: [SSRCAttribute]
    /// What follows each `a=candidate:`, as written (`ICECandidate(parsing:)` reads one).
    public var candidates: [String]
    /// `a=end-of-candidates` (RFC 8840 §8.2): no more candidates will trickle in.
    public var endOfCandidates: Bool

    public init(media: String, port: Int, transportProtocol: String, payloadTypes: [UInt8], formats: [String] = [],
                rtpMaps: [UInt8: RTPMap] = [:], formatParameters: [UInt8: [String: String]] = [:], control: String? = nil,
                connection: SDPConnection? = nil, mid: String? = nil, direction: MediaDirection? = nil,
                transport: TransportAttributes = TransportAttributes(), bundleOnly: Bool = false, rtcpMux: Bool = false,
                rtcpReducedSize: Bool = false, rtcpFeedback: [RTCPFeedbackAttribute] = [], headerExtensions: [RTPHeaderExtensionMap] = [],
                mediaStreams: [MediaStreamIdentification] = [], ssrcGroups: [SSRCGroup] = [], ssrcAttributes: [SSRCAttribute] = [],
                candidates: [String] = [], endOfCandidates: Bool = false) {
        self.media = media
        self.port = port
        self.transportProtocol = transportProtocol
        self.payloadTypes = payloadTypes
        self.formats = formats
        self.rtpMaps = rtpMaps
        self.formatParameters = formatParameters
        self.control = control
        self.connection = connection
        self.mid = mid
        self.direction = direction
        self.transport = transport
        self.bundleOnly = bundleOnly
        self.rtcpMux = rtcpMux
        self.rtcpReducedSize = rtcpReducedSize
        self.rtcpFeedback = rtcpFeedback
        self.headerExtensions = headerExtensions
        self.mediaStreams = mediaStreams
        self.ssrcGroups = ssrcGroups
        self.ssrcAttributes = ssrcAttributes
        self.candidates = candidates
        self.endOfCandidates = endOfCandidates
    }

    /// Whether the formats are RTP payload types: "RTP/AVP", "RTP/SAVPF", "UDP/TLS/RTP/SAVPF" (RFC 5764 §8), not "UDP/DTLS/SCTP".
    public var carriesRTP: Bool { transportProtocol.split(separator: "/").contains("RTP") }

    /// `<media> <port>[/<count>] <proto> <fmt> ...`.
    init(mediaLine value: String, context: SDPLine) throws {
        let fields = value.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 4 else { throw context.invalid("fewer than four fields") }
        let portText = fields[1].split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)[0]
        guard let port = Int(portText), (0...65535).contains(port) else { throw context.invalid("port \(fields[1]) is not 0...65535") }
        self.init(media: String(fields[0]), port: port, transportProtocol: String(fields[2]), payloadTypes: [])
        if carriesRTP {
            for field in fields[3...] {
                guard let type = UInt8(field), type < 128 else { throw context.invalid("payload type \(field) is not 0...127") }
                payloadTypes.append(type)
            }
        } else {
            formats = fields[3...].map(String.init)
        }
    }

    /// One `a=` line of this section (`value` is what follows "a=").
    mutating func read(attribute value: String, context: SDPLine) throws {
        if try transport.read(attribute: value, context: context) { return }
        if let direction = MediaDirection(attribute: value) {
            self.direction = direction
        } else if carriesRTP, let rtpmap = SDPLine.attribute("rtpmap", in: value) {
            let (type, rest) = try Self.payloadType(rtpmap, context: context)
            let parts = rest.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count >= 2, !parts[0].isEmpty, let clockRate = Int(parts[1]), clockRate > 0 else {
                throw context.invalid("not <encoding name>/<clock rate>")
            }
            var channels: Int?
            if parts.count >= 3 {
                guard let count = Int(parts[2]), count > 0 else { throw context.invalid("channels \(parts[2]) is not a count") }
                channels = count
            }
            rtpMaps[type] = RTPMap(encodingName: String(parts[0]), clockRate: clockRate, channels: channels)
        } else if carriesRTP, let fmtp = SDPLine.attribute("fmtp", in: value) {
            let (type, rest) = try Self.payloadType(fmtp, context: context)
            var parameters: [String: String] = [:]
            for item in rest.split(separator: ";") {
                let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = String(pair[0]).trimmingSpaces.lowercased()
                guard !name.isEmpty else { continue }
                parameters[name] = pair.count > 1 ? String(pair[1]).trimmingSpaces : ""
            }
            formatParameters[type] = parameters
        } else if carriesRTP, let feedback = SDPLine.attribute("rtcp-fb", in: value) {
            rtcpFeedback.append(try RTCPFeedbackAttribute(parsing: feedback, context: context))
        } else if let control = SDPLine.attribute("control", in: value) {
            self.control = control
        } else if let mid = SDPLine.attribute("mid", in: value) {
            self.mid = mid
        } else if let extmap = SDPLine.attribute("extmap", in: value) {
            headerExtensions.append(try RTPHeaderExtensionMap(parsing: extmap, context: context))
        } else if let msid = SDPLine.attribute("msid", in: value) {
            mediaStreams.append(try MediaStreamIdentification(parsing: msid, context: context))
        } else if let group = SDPLine.attribute("ssrc-group", in: value) {
            ssrcGroups.append(try SSRCGroup(parsing: group, context: context))
        } else if let ssrc = SDPLine.attribute("ssrc", in: value) {
            ssrcAttributes.append(try SSRCAttribute(parsing: ssrc, context: context))
        } else if let candidate = SDPLine.attribute("candidate", in: value) {
            candidates.append(candidate)
        } else {
            switch value {
            case "rtcp-mux": rtcpMux = true
            case "rtcp-rsize": rtcpReducedSize = true
            case "bundle-only": bundleOnly = true
            case "end-of-candidates": endOfCandidates = true
            default: break
            }
        }
    }

    /// Puts `rtcpFeedback` in the order `render` writes it, so a description read back equals the one written.
    mutating func finishReading() {
        let rank = feedbackRank
        rtcpFeedback = rtcpFeedback.enumerated().sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }.map(\.element)
    }

    /// "*" first, then the m= line's order, then payload types it does not list, by number.
    private var feedbackRank: (RTCPFeedbackAttribute) -> Int {
        let positions = Dictionary(payloadTypes.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { first, _ in first })
        return { feedback in
            guard let type = feedback.payloadType else { return -1 }
            return positions[type] ?? (payloadTypes.count + Int(type))
        }
    }

    /// The payload type before the first space, and what follows it.
    private static func payloadType(_ value: String, context: SDPLine) throws -> (UInt8, String) {
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard let first = parts.first, let type = UInt8(first), type < 128 else { throw context.invalid("no payload type 0...127") }
        return (type, parts.count > 1 ? String(parts[1]).trimmingSpaces : "")
    }
}
