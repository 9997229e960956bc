// RFC 2326 §12.39 Transport: the transport specification a SETUP request offers and its response confirms.

/// One transport specification: `RTP/AVP/TCP;unicast;interleaved=0-1` or `RTP/AVP;unicast;client_port=5000-5001`.
public struct RTSPTransport: Sendable, Equatable {
    /// A pair of channels or ports: RTP, then RTCP.
    public struct Pair: Sendable, Equatable {
        public var rtp: Int
        public var rtcp: Int
        public init(_ rtp: Int, _ rtcp: Int) {
            self.rtp = rtp
            self.rtcp = rtcp
        }
    }

    /// "RTP/AVP" (UDP) or "RTP/AVP/TCP"; "RTP/AVP/UDP" is read as UDP.
    public var protocolName: String
    public var isUnicast: Bool
    /// `interleaved=`: the channels of RTP and RTCP on the RTSP connection.
    public var interleaved: Pair?
    /// `client_port=`.
    public var clientPort: Pair?
    /// `server_port=`.
    public var serverPort: Pair?
    /// `ssrc=`, 8 hex digits.
    public var ssrc: UInt32?

    public init(protocolName: String = "RTP/AVP", isUnicast: Bool = true, interleaved: Pair? = nil, clientPort: Pair? = nil,
                serverPort: Pair? = nil, ssrc: UInt32? = nil) {
        self.protocolName = protocolName
        self.isUnicast = isUnicast
        self.interleaved = interleaved
        self.clientPort = clientPort
        self.serverPort = serverPort
        self.ssrc = ssrc
    }

    /// Over the RTSP connection.
    public var isTCP: Bool { protocolName.uppercased() == "RTP/AVP/TCP" }

    /// The first specification of a Transport header; parameters this client does not use are skipped.
    public init(parsing value: String) throws {
        let first = value.split(separator: ",", maxSplits: 1).first.map(String.init) ?? ""
        let parts = first.split(separator: ";").map { String($0).trimmedOfSpaces }
        guard let name = parts.first, name.uppercased().hasPrefix("RTP/AVP") else {
            throw RTSPError.malformed(structure: "Transport header", reason: "\"\(value.prefix(80))\" is not RTP/AVP")
        }
        self.init(protocolName: name, isUnicast: true)
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map(String.init)
            guard let key = pair.first else { continue }
            switch key.lowercased() {
            case "multicast": isUnicast = false
            case "unicast": isUnicast = true
            case "interleaved": interleaved = try Self.pair(pair, in: value, limit: 255)
            case "client_port": clientPort = try Self.pair(pair, in: value, limit: 65535)
            case "server_port": serverPort = try Self.pair(pair, in: value, limit: 65535)
            case "ssrc":
                guard pair.count == 2, let ssrc = UInt32(pair[1].trimmedOfSpaces, radix: 16) else {
                    throw RTSPError.malformed(structure: "Transport header", reason: "\"\(parameter)\" is not 8 hex digits")
                }
                self.ssrc = ssrc
            default: continue
            }
        }
    }

    /// The header value.
    public var value: String {
        var text = protocolName + (isUnicast ? ";unicast" : ";multicast")
        if let interleaved { text += ";interleaved=\(interleaved.rtp)-\(interleaved.rtcp)" }
        if let clientPort { text += ";client_port=\(clientPort.rtp)-\(clientPort.rtcp)" }
        if let serverPort { text += ";server_port=\(serverPort.rtp)-\(serverPort.rtcp)" }
        if let ssrc { text += ";ssrc=" + String(ssrc, radix: 16, uppercase: true) }
        return text
    }

    /// "n" or "n-m", each 0...limit; a single number pairs with the next one.
    private static func pair(_ parameter: [String], in value: String, limit: Int) throws -> Pair {
        let numbers = parameter.count == 2 ? parameter[1].split(separator: "-", maxSplits: 1).map { Int(String($0).trimmedOfSpaces) } : []
        guard let rtp = numbers.first ?? nil, (0...limit).contains(rtp) else {
            throw RTSPError.malformed(structure: "Transport header", reason: "\"\(parameter.joined(separator: "="))\" is not a range within 0...\(limit)")
        }
        let rtcp = numbers.count > 1 ? numbers[1] : min(rtp + 1, limit)
        guard let rtcp, (0...limit).contains(rtcp) else {
            throw RTSPError.malformed(structure: "Transport header", reason: "\"\(parameter.joined(separator: "="))\" is not a range within 0...\(limit)")
        }
        return Pair(rtp, rtcp)
    }
}
