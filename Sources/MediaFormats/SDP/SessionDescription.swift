// RFC 8866 §5 SDP specification (the session section, then one section per m= line), §5.14 media descriptions.

/// A session description as an RTSP server sends it in its DESCRIBE response: the session's control and name, and
/// one `MediaDescription` per `m=` line. Lines may end in CRLF or LF; lines this reader does not use are ignored; a
/// malformed line it needs (`v=`, `m=`, `a=rtpmap`, `a=fmtp`) throws naming the line.
public struct SessionDescription: Sendable, Equatable {
    /// The longest description read: a camera's is a few KiB.
    public static let maxSize = 64 << 10

    /// `s=`.
    public var sessionName: String?
    /// The session-level `a=control`: the aggregate URL for PLAY and TEARDOWN when given.
    public var control: String?
    /// The media sections in order.
    public var media: [MediaDescription]

    public init(sessionName: String? = nil, control: String? = nil, media: [MediaDescription]) {
        self.sessionName = sessionName
        self.control = control
        self.media = media
    }

    public init(parsing text: String) throws {
        guard text.utf8.count <= Self.maxSize else {
            throw MediaFormatError.limitExceeded(what: "session description size", value: text.utf8.count, limit: Self.maxSize)
        }
        media = []
        var sawVersion = false
        // Swift reads CRLF as one Character, a newline like LF.
        for (number, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            guard !line.isEmpty else { continue }
            let context = SDPLine(number: number + 1, text: String(line))
            let bytes = Array(line.utf8)
            // "<type>=<value>" with a one-letter type (§5); anything else is not a line this reader knows.
            guard bytes.count >= 2, bytes[1] == UInt8(ascii: "=") else { continue }
            let value = String(line.dropFirst(2))
            switch bytes[0] {
            case UInt8(ascii: "v"):
                guard value == "0" else { throw context.invalid("version \(value), expected 0") }
                sawVersion = true
            case UInt8(ascii: "s") where media.isEmpty:
                sessionName = value
            case UInt8(ascii: "m"):
                media.append(try MediaDescription(mediaLine: value, context: context))
            case UInt8(ascii: "a"):
                if media.isEmpty {
                    if let control = SDPLine.attribute("control", in: value) { self.control = control }
                } else {
                    try media[media.count - 1].read(attribute: value, context: context)
                }
            default:
                continue
            }
        }
        guard sawVersion else { throw MediaFormatError.invalid(structure: "SDP", reason: "no v= line") }
    }

    /// The URL for a control attribute against `base` (the Content-Base, else the request URL): an absolute URL as
    /// is, `*` or none as the base, a relative one appended to the base with one slash, as cameras expect (not RFC 3986's
    /// resolution, which would replace the base's last path segment).
    public static func resolve(control: String?, base: String) -> String {
        guard let control, !control.isEmpty, control != "*" else { return base }
        if control.contains("://") { return control }
        if base.hasSuffix("/") || control.hasPrefix("/") {
            return base.hasSuffix("/") && control.hasPrefix("/") ? base + control.dropFirst() : base + control
        }
        return base + "/" + control
    }
}

/// Where a line is, for errors that name it.
struct SDPLine {
    let number: Int
    let text: String

    func invalid(_ reason: String) -> MediaFormatError {
        .invalid(structure: "SDP", reason: "line \(number) \"\(text)\": \(reason)")
    }

    /// The value of `a=<name>:<value>` (`value` is what follows "a="), nil for another attribute.
    static func attribute(_ name: String, in value: String) -> String? {
        guard value.hasPrefix(name + ":") else { return nil }
        return String(value.dropFirst(name.count + 1)).trimmingSpaces
    }
}
