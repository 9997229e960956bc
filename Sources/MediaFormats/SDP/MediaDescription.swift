// RFC 8866 §5.14 media descriptions ("m="), §6.6 rtpmap, §6.15 fmtp; RFC 2326 §C.1.1 the control attribute.

/// One `m=` section: the media, its transport and payload types, each type's `a=rtpmap` and `a=fmtp`, and its
/// `a=control`.
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
    }

    /// "video", "audio", "application".
    public var media: String
    public var port: Int
    /// "RTP/AVP", "RTP/AVPF", "RTP/SAVP".
    public var transportProtocol: String
    /// The formats of the m= line: RTP payload types under an RTP profile.
    public var payloadTypes: [UInt8]
    /// `a=rtpmap` by payload type.
    public var rtpMaps: [UInt8: RTPMap]
    /// `a=fmtp` parameters by payload type, names lowercased (the H.264, H.265 and mpeg4-generic names are case-insensitive).
    public var formatParameters: [UInt8: [String: String]]
    /// `a=control`, relative or absolute: `SessionDescription.resolve(control:base:)` makes it the track's URL.
    public var control: String?

    public init(media: String, port: Int, transportProtocol: String, payloadTypes: [UInt8], rtpMaps: [UInt8: RTPMap] = [:],
                formatParameters: [UInt8: [String: String]] = [:], control: String? = nil) {
        self.media = media
        self.port = port
        self.transportProtocol = transportProtocol
        self.payloadTypes = payloadTypes
        self.rtpMaps = rtpMaps
        self.formatParameters = formatParameters
        self.control = control
    }

    /// `<media> <port>[/<count>] <proto> <fmt> ...`.
    init(mediaLine value: String, context: SDPLine) throws {
        let fields = value.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 4 else { throw context.invalid("fewer than four fields") }
        let portText = fields[1].split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)[0]
        guard let port = Int(portText), (0...65535).contains(port) else { throw context.invalid("port \(fields[1]) is not 0...65535") }
        media = String(fields[0])
        self.port = port
        transportProtocol = String(fields[2])
        var payloadTypes: [UInt8] = []
        if transportProtocol.hasPrefix("RTP/") {
            for field in fields[3...] {
                guard let type = UInt8(field), type < 128 else { throw context.invalid("payload type \(field) is not 0...127") }
                payloadTypes.append(type)
            }
        }
        self.payloadTypes = payloadTypes
        rtpMaps = [:]
        formatParameters = [:]
    }

    /// One `a=` line of this section (`value` is what follows "a=").
    mutating func read(attribute value: String, context: SDPLine) throws {
        if let rtpmap = SDPLine.attribute("rtpmap", in: value) {
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
        } else if let fmtp = SDPLine.attribute("fmtp", in: value) {
            let (type, rest) = try Self.payloadType(fmtp, context: context)
            var parameters: [String: String] = [:]
            for item in rest.split(separator: ";") {
                let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = String(pair[0]).trimmingSpaces.lowercased()
                guard !name.isEmpty else { continue }
                parameters[name] = pair.count > 1 ? String(pair[1]).trimmingSpaces : ""
            }
            formatParameters[type] = parameters
        } else if let control = SDPLine.attribute("control", in: value) {
            self.control = control
        }
    }

    /// The payload type before the first space, and what follows it.
    private static func payloadType(_ value: String, context: SDPLine) throws -> (UInt8, String) {
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard let first = parts.first, let type = UInt8(first), type < 128 else { throw context.invalid("no payload type 0...127") }
        return (type, parts.count > 1 ? String(parts[1]).trimmingSpaces : "")
    }
}
