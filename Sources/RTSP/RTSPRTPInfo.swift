// RFC 2326 §12.33 RTP-Info: for each stream PLAY started, the sequence number and RTP timestamp of its first packet
// after the play range's start, so the streams' RTP clocks meet at one instant (npt of the Range).

/// One stream's entry of an RTP-Info header: `url=rtsp://cam/track1;seq=4512;rtptime=3450012`.
public struct RTSPRTPInfo: Sendable, Equatable {
    /// The stream's URL as the server wrote it (absolute, or relative to the request).
    public var url: String
    public var sequenceNumber: UInt16?
    /// The RTP timestamp that corresponds to the start of the play range.
    public var rtpTime: UInt32?

    public init(url: String, sequenceNumber: UInt16? = nil, rtpTime: UInt32? = nil) {
        self.url = url
        self.sequenceNumber = sequenceNumber
        self.rtpTime = rtpTime
    }

    /// The entries of one header value, in order. An entry without `url`, or a `seq`/`rtptime` that is not a number in
    /// range, throws: the value would put a stream at a wrong time.
    public static func parse(_ value: String) throws -> [RTSPRTPInfo] {
        func malformed(_ reason: String) -> RTSPError { .malformed(structure: "RTP-Info header", reason: reason) }
        var entries: [RTSPRTPInfo] = []
        // Entries are split at commas that start a new `url=`: a URL may itself hold a comma.
        var current: [Substring] = []
        func close() throws {
            guard !current.isEmpty else { return }
            var entry = RTSPRTPInfo(url: "")
            var hasURL = false
            for parameter in current.joined(separator: ",").split(separator: ";") {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { String($0).trimmedOfSpaces }
                guard pair.count == 2 else { continue }
                switch pair[0].lowercased() {
                case "url":
                    entry.url = pair[1].trimmingQuotes
                    hasURL = true
                case "seq":
                    guard let number = UInt16(pair[1]) else { throw malformed("seq=\(pair[1].prefix(20)) is not 0...65535") }
                    entry.sequenceNumber = number
                case "rtptime":
                    guard let number = UInt32(pair[1]) else { throw malformed("rtptime=\(pair[1].prefix(20)) is not 0...4294967295") }
                    entry.rtpTime = number
                default:
                    continue
                }
            }
            guard hasURL else { throw malformed("an entry without url=") }
            entries.append(entry)
            current = []
        }
        for piece in value.split(separator: ",", omittingEmptySubsequences: false) {
            if piece.drop(while: { $0 == " " || $0 == "\t" }).lowercased().hasPrefix("url=") { try close() }
            current.append(piece)
        }
        try close()
        return entries
    }
}

extension String {
    /// Without one pair of enclosing double quotes.
    var trimmingQuotes: String {
        hasPrefix("\"") && hasSuffix("\"") && count >= 2 ? String(dropFirst().dropLast()) : self
    }
}
