// How a problem quotes a value from the document: redacted, shortened and escaped, so that a message never carries
// a stream key, a megabyte of text or a line break into a log or SQLite.
extension SpecValidator {
    /// Text from the document as a message quotes it: redacted, and cut short (messages go to logs and SQLite).
    /// A value as a problem quotes it: redacted, shortened, and with control characters escaped (a line break in an
    /// id must not start a new line in a log).
    func quoted(_ text: String) -> String { "\"\(SpecValidator.escaped(SpecValidator.shortened(Redaction.redact(url: text))))\"" }

    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: result += "\\u{\(String(scalar.value, radix: 16))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    static let quotedLength = 200

    static func shortened(_ text: String) -> String {
        text.unicodeScalars.count <= quotedLength ? text : String(String.UnicodeScalarView(text.unicodeScalars.prefix(quotedLength))) + "…"
    }
}
