// RFC 8866 §5 SDP specification (the session section, then one section per m= line), §5.14 media descriptions.

/// A session description: an RTSP server's DESCRIBE response, or a WebRTC offer or answer. The session's origin, name,
/// connection, control, groups and ICE/DTLS attributes, and one `MediaDescription` per `m=` line. Lines may end in CRLF
/// or LF; lines and attributes this reader does not use are ignored; a malformed line it reads throws naming the line.
/// `render()` writes it back.
public struct SessionDescription: Sendable, Equatable {
    /// The longest description read: a camera's is a few KiB, a browser's offer with many codecs under 16 KiB.
    public static let maxSize = 64 << 10

    /// `o=`.
    public var origin: SDPOrigin?
    /// `s=`.
    public var sessionName: String?
    /// Session-level `c=`.
    public var connection: SDPConnection?
    /// The session-level `a=control`: the aggregate URL for PLAY and TEARDOWN when given.
    public var control: String?
    /// `a=ice-lite` (RFC 8839 §5.3): the writer only answers connectivity checks.
    public var iceLite: Bool
    /// `a=group`, in order.
    public var groups: [SDPGroup]
    /// Session-level ICE and DTLS attributes; a media section's own win (`transport(of:)`).
    public var transport: TransportAttributes
    /// The session-level direction, for sections without their own.
    public var direction: MediaDirection?
    /// Session-level `a=extmap`.
    public var headerExtensions: [RTPHeaderExtensionMap]
    /// Session-level `a=end-of-candidates`.
    public var endOfCandidates: Bool
    /// The media sections in order.
    public var media: [MediaDescription]

    public init(origin: SDPOrigin? = nil, sessionName: String? = nil, connection: SDPConnection? = nil, control: String? = nil,
                iceLite: Bool = false, groups: [SDPGroup] = [], transport: TransportAttributes = TransportAttributes(),
                direction: MediaDirection? = nil, headerExtensions: [RTPHeaderExtensionMap] = [], endOfCandidates: Bool = false,
                media: [MediaDescription]) {
        self.origin = origin
        self.sessionName = sessionName
        self.connection = connection
        self.control = control
        self.iceLite = iceLite
        self.groups = groups
        self.transport = transport
        self.direction = direction
        self.headerExtensions = headerExtensions
        self.endOfCandidates = endOfCandidates
        self.media = media
    }

    public init(parsing text: String) throws {
        guard text.utf8.count <= Self.maxSize else {
            throw MediaFormatError.limitExceeded(what: "session description size", value: text.utf8.count, limit: Self.maxSize)
        }
        self.init(media: [])
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
            case UInt8(ascii: "o") where media.isEmpty:
                origin = try SDPOrigin(parsing: value, context: context)
            case UInt8(ascii: "s") where media.isEmpty:
                sessionName = value
            case UInt8(ascii: "c"):
                let connection = try SDPConnection(parsing: value, context: context)
                if media.isEmpty { self.connection = connection } else { media[media.count - 1].connection = connection }
            case UInt8(ascii: "m"):
                media.append(try MediaDescription(mediaLine: value, context: context))
            case UInt8(ascii: "a"):
                if media.isEmpty {
                    try read(attribute: value, context: context)
                } else {
                    try media[media.count - 1].read(attribute: value, context: context)
                }
            default:
                continue
            }
        }
        guard sawVersion else { throw MediaFormatError.invalid(structure: "SDP", reason: "no v= line") }
        for index in media.indices { media[index].finishReading() }
    }

    /// One session-level `a=` line (`value` is what follows "a=").
    private mutating func read(attribute value: String, context: SDPLine) throws {
        if try transport.read(attribute: value, context: context) { return }
        if let direction = MediaDirection(attribute: value) {
            self.direction = direction
        } else if let control = SDPLine.attribute("control", in: value) {
            self.control = control
        } else if let group = SDPLine.attribute("group", in: value) {
            groups.append(try SDPGroup(parsing: group, context: context))
        } else if let extmap = SDPLine.attribute("extmap", in: value) {
            headerExtensions.append(try RTPHeaderExtensionMap(parsing: extmap, context: context))
        } else if value == "ice-lite" {
            iceLite = true
        } else if value == "end-of-candidates" {
            endOfCandidates = true
        }
    }

    /// The ICE and DTLS attributes that hold for `media`: its own, else the session's.
    public func transport(of media: MediaDescription) -> TransportAttributes { transport.overridden(by: media.transport) }

    /// The direction that holds for `media`: its own, else the session's, else sendrecv (RFC 8866 §6.7).
    public func direction(of media: MediaDescription) -> MediaDirection { media.direction ?? direction ?? .sendrecv }

    /// The first `a=group:BUNDLE`, if any.
    public var bundleGroup: SDPGroup? { groups.first { $0.semantics == "BUNDLE" } }

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
