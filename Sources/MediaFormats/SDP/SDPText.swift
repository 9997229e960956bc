// RFC 8866 §5: SDP values as text; MediaFormats has no Foundation to trim them.

extension String {
    /// Without leading and trailing spaces and tabs (SDP and fmtp values).
    var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
