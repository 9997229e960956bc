// RFC 8866 §5: a description is lines of <type>=<value>, each ended by CRLF, in the order §5 fixes.

/// The lines of a description being written; `text` joins them with CRLF.
struct SDPLines {
    private(set) var lines: [String] = []

    /// "<type>=<value>".
    mutating func field(_ type: Character, _ value: String) { lines.append("\(type)=\(value)") }

    /// "a=<name>:<value>".
    mutating func attribute(_ name: String, _ value: String) { lines.append("a=\(name):\(value)") }

    /// "a=<flag>" (rtcp-mux, sendonly, ice-lite).
    mutating func flag(_ name: String) { lines.append("a=\(name)") }

    var text: String { lines.map { $0 + "\r\n" }.joined() }
}
