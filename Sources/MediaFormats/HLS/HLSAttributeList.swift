// RFC 8216bis §4.2 Attribute Lists: comma-separated AttributeName=AttributeValue pairs, names [A-Z0-9-], values
// decimal-integer, decimal-floating-point, quoted-string, enumerated-string or decimal-resolution.

/// An attribute list in the order written: what a tag such as EXT-X-PART or EXT-X-STREAM-INF carries after its colon.
public struct HLSAttributeList: Sendable, Equatable, CustomStringConvertible {
    /// One attribute value, typed as the spec types it.
    public enum Value: Sendable, Equatable {
        /// decimal-integer.
        case integer(UInt64)
        /// decimal-floating-point, printed with a fixed number of fraction digits.
        case decimal(Double, fractionDigits: Int)
        /// quoted-string (printed between double quotes, which it must not contain).
        case quoted(String)
        /// enumerated-string, or the unquoted text of a value read from a playlist.
        case enumerated(String)
        /// decimal-resolution `<width>x<height>`.
        case resolution(width: Int, height: Int)

        var text: String {
            switch self {
            case let .integer(value): return String(value)
            case let .decimal(value, digits): return HLSNumber.decimal(value, fractionDigits: digits)
            case let .quoted(text): return "\"" + text + "\""
            case let .enumerated(text): return text
            case let .resolution(width, height): return "\(width)x\(height)"
            }
        }
    }

    /// More attributes than any tag defines: a list longer than this is refused as hostile.
    public static let maxAttributes = 64

    /// The attributes, in order.
    public private(set) var attributes: [(name: String, value: Value)] = []

    /// An empty list.
    public init() {}

    /// Appends `name=value`.
    public mutating func append(_ name: String, _ value: Value) { attributes.append((name, value)) }

    /// Appends `name=value` when `value` is not nil.
    public mutating func append(_ name: String, _ value: Value?) {
        if let value { attributes.append((name, value)) }
    }

    /// Appends `name=YES` when `flag` is set (the spec's boolean attributes are absent rather than NO).
    public mutating func appendFlag(_ name: String, _ flag: Bool) {
        if flag { attributes.append((name, .enumerated("YES"))) }
    }

    public var description: String { attributes.map { $0.name + "=" + $0.value.text }.joined(separator: ",") }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.attributes.count == rhs.attributes.count
            && zip(lhs.attributes, rhs.attributes).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    // MARK: Reading

    /// Parses the text after a tag's colon. Quoted values become `.quoted`, all others `.enumerated` with their
    /// text; the typed accessors below convert them. `tag` names the structure in errors.
    public init(parsing text: Substring, tag: String) throws {
        var rest = text[...]
        while !rest.isEmpty {
            guard attributes.count < Self.maxAttributes else {
                throw MediaFormatError.limitExceeded(what: "\(tag) attribute count", value: attributes.count + 1,
                                                     limit: Self.maxAttributes)
            }
            guard let equals = rest.firstIndex(of: "=") else {
                throw MediaFormatError.invalid(structure: tag, reason: "attribute without '=': \(rest.prefix(40))")
            }
            let name = rest[..<equals]
            guard !name.isEmpty, name.utf8.allSatisfy(Self.isNameByte) else {
                throw MediaFormatError.invalid(structure: tag, reason: "attribute name '\(name.prefix(40))'")
            }
            rest = rest[rest.index(after: equals)...]
            let value: Value
            if rest.first == "\"" {
                let body = rest.dropFirst()
                guard let close = body.firstIndex(of: "\"") else {
                    throw MediaFormatError.invalid(structure: tag, reason: "unterminated quoted-string for \(name)")
                }
                value = .quoted(String(body[..<close]))
                rest = body[body.index(after: close)...]
            } else {
                let end = rest.firstIndex(of: ",") ?? rest.endIndex
                value = .enumerated(String(rest[..<end]))
                rest = rest[end...]
            }
            attributes.append((String(name), value))
            if rest.first == "," {
                rest = rest.dropFirst()
                guard !rest.isEmpty else { throw MediaFormatError.invalid(structure: tag, reason: "trailing comma") }
            } else if !rest.isEmpty {
                throw MediaFormatError.invalid(structure: tag, reason: "text after the value of \(name)")
            }
        }
    }

    /// The first value named `name`.
    public subscript(name: String) -> Value? { attributes.first { $0.name == name }?.value }

    /// A decimal-integer attribute; nil when absent, an error when malformed.
    public func integer(_ name: String, tag: String) throws -> UInt64? {
        try value(name, tag: tag, kind: "a decimal-integer") {
            switch $0 {
            case let .integer(value): value
            case let .enumerated(text): HLSNumber.integer(text)
            default: nil
            }
        }
    }

    /// A decimal-floating-point attribute; nil when absent, an error when malformed.
    public func decimal(_ name: String, tag: String) throws -> Double? {
        try value(name, tag: tag, kind: "a decimal-floating-point") {
            switch $0 {
            case let .decimal(value, _): value
            case let .integer(value): Double(value)
            case let .enumerated(text): HLSNumber.decimal(text)
            default: nil
            }
        }
    }

    /// A quoted-string attribute; nil when absent, an error when not quoted.
    public func quoted(_ name: String, tag: String) throws -> String? {
        try value(name, tag: tag, kind: "a quoted-string") { if case let .quoted(text) = $0 { text } else { nil } }
    }

    /// An enumerated-string attribute; nil when absent, an error when quoted.
    public func enumerated(_ name: String, tag: String) throws -> String? {
        try value(name, tag: tag, kind: "an enumerated-string") { if case let .enumerated(text) = $0 { text } else { nil } }
    }

    /// The value named `name` converted by `convert`; nil when absent, an error naming `kind` when it does not convert.
    private func value<T>(_ name: String, tag: String, kind: String, _ convert: (Value) -> T?) throws -> T? {
        guard let value = self[name] else { return nil }
        guard let converted = convert(value) else {
            throw MediaFormatError.invalid(structure: tag, reason: "\(name) is not \(kind)")
        }
        return converted
    }

    /// A YES/NO attribute: true for YES, false when absent or NO.
    public func flag(_ name: String, tag: String) throws -> Bool {
        switch try enumerated(name, tag: tag) {
        case nil, "NO"?: return false
        case "YES"?: return true
        case let other?: throw MediaFormatError.invalid(structure: tag, reason: "\(name)=\(other.prefix(20)) is not YES or NO")
        }
    }

    /// A required attribute's value, or an error naming it.
    public static func required<T>(_ value: T?, _ name: String, tag: String) throws -> T {
        guard let value else { throw MediaFormatError.invalid(structure: tag, reason: "\(name) is missing") }
        return value
    }

    /// [A-Z0-9-], the characters of an AttributeName.
    private static func isNameByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || byte == UInt8(ascii: "-")
    }

    /// True when `text` can be printed as a quoted-string: no double quote, carriage return or line feed.
    public static func isQuotable(_ text: String) -> Bool {
        !text.utf8.contains { $0 == UInt8(ascii: "\"") || $0 == 0x0D || $0 == 0x0A }
    }
}
