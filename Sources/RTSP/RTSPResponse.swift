// RFC 2326 §7 Response (Status-Line, headers, CRLF, message body), §7.1.1 status codes.

/// A response from the server.
public struct RTSPResponse: Sendable, Equatable {
    public var statusCode: Int
    public var reasonPhrase: String
    public var headers: RTSPHeaders
    public var body: [UInt8]

    public init(statusCode: Int, reasonPhrase: String, headers: RTSPHeaders = [:], body: [UInt8] = []) {
        self.statusCode = statusCode
        self.reasonPhrase = reasonPhrase
        self.headers = headers
        self.body = body
    }

    /// "401 Unauthorized": how errors name the status.
    public var status: String { "\(statusCode) \(reasonPhrase)" }

    public var isSuccess: Bool { (200...299).contains(statusCode) }

    /// The CSeq header as a number; nil when absent or not a number.
    public var sequenceNumber: Int? { headers["CSeq"].flatMap { Int($0.trimmedOfSpaces) } }

    /// "RTSP/1.0 200 OK": the version, a three-digit code, the reason phrase (possibly empty).
    static func statusLine(_ line: String) throws -> (code: Int, reason: String) {
        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].hasPrefix("RTSP/1."), parts[1].utf8.count == 3, let code = Int(parts[1]), (100...999).contains(code) else {
            throw RTSPError.malformed(structure: "status line", reason: "\"\(line.prefix(80))\"")
        }
        return (code, parts.count > 2 ? String(parts[2]) : "")
    }
}

extension String {
    /// Without leading and trailing spaces and tabs (header values).
    var trimmedOfSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
