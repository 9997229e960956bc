/// A streamid as peers send it, in either convention:
/// - the access-control syntax of libsrt's `docs/features/access-control.md`: `#!::r=live/KEY,m=publish`, keys
///   `r` (resource), `m` (mode: `request`, the default, or `publish`), `u` (user), `s` (session), `h` (host) and
///   `t` (type: only `stream`);
/// - the short form ffmpeg users and MediaMTX write: `publish:live/KEY`, `read:live/KEY`, and a plain `live/KEY`,
///   which asks to read (as `m` defaults to `request`).
/// Pure. Errors name the key or rule that failed, never the resource, which carries the stream key.
public struct SRTStreamID: Equatable, Sendable {
    /// What the peer wants to do with the resource.
    public enum Mode: String, Equatable, Sendable {
        /// Send a stream to us (`m=publish`, `publish:`).
        case publish
        /// Receive a stream from us (`m=request`, `read:`, or no mode).
        case request
    }

    /// The stream asked for, e.g. `live/KEY`.
    public var resource: String
    public var mode: Mode
    /// `u`: the user name, if the peer gave one.
    public var user: String?
    /// `s`: the session id, if the peer gave one.
    public var session: String?
    /// `h`: the host name the peer meant (virtual hosting), if given.
    public var host: String?

    public init(resource: String, mode: Mode, user: String? = nil, session: String? = nil, host: String? = nil) {
        self.resource = resource
        self.mode = mode
        self.user = user
        self.session = session
        self.host = host
    }

    /// The access-control syntax's marker.
    static let accessControlPrefix = "#!::"

    /// Parses a streamid in either convention.
    /// - Throws: `SRTAddressError.invalidStreamID` naming the key or rule (never the resource).
    public init(parsing text: String) throws(SRTAddressError) {
        guard !text.isEmpty else { throw .invalidStreamID(reason: "empty") }
        guard text.utf8.count <= SRTURL.maximumStreamIDLength else {
            throw .invalidStreamID(reason: "longer than \(SRTURL.maximumStreamIDLength) bytes")
        }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == " " }) else {
            throw .invalidStreamID(reason: "contains spaces or control characters")
        }
        if text.hasPrefix(Self.accessControlPrefix) {
            try self.init(accessControl: text.dropFirst(Self.accessControlPrefix.count))
        } else {
            try self.init(short: Substring(text))
        }
    }

    /// `key=value,key=value` after `#!::`.
    private init(accessControl body: Substring) throws(SRTAddressError) {
        var values: [Substring: Substring] = [:]
        for pair in body.split(separator: ",", omittingEmptySubsequences: false) {
            let key = pair.prefix { $0 != "=" }
            guard key.endIndex < pair.endIndex else { throw .invalidStreamID(reason: "an entry is not key=value") }
            let value = pair[pair.index(after: key.endIndex)...]
            guard Self.accessControlKeys.contains(key) else { throw .invalidStreamID(reason: "unknown key \(SRTAddressError.quoted(key)) (known: r, m, u, s, h, t)") }
            guard !value.isEmpty else { throw .invalidStreamID(reason: "key '\(key)' has an empty value") }
            guard values.updateValue(value, forKey: key) == nil else { throw .invalidStreamID(reason: "key '\(key)' appears twice") }
        }
        guard let resource = values["r"] else { throw .invalidStreamID(reason: "no resource (key 'r')") }
        if let type = values["t"], type != "stream" {
            throw .invalidStreamID(reason: "type t=\(SRTAddressError.quoted(type)) is not supported (only stream)")
        }
        let mode: Mode
        switch values["m"] {
        case nil, "request": mode = .request
        case "publish": mode = .publish
        case let other?: throw .invalidStreamID(reason: "mode m=\(SRTAddressError.quoted(other)) is not request or publish")
        }
        self.init(resource: String(resource), mode: mode, user: values["u"].map(String.init),
                  session: values["s"].map(String.init), host: values["h"].map(String.init))
    }

    /// The keys of the access-control syntax this parser knows.
    static let accessControlKeys: Set<Substring> = ["r", "m", "u", "s", "h", "t"]

    /// `publish:RESOURCE`, `read:RESOURCE` or a bare `RESOURCE`.
    private init(short text: Substring) throws(SRTAddressError) {
        guard let colon = text.firstIndex(of: ":") else {
            self.init(resource: String(text), mode: .request)
            return
        }
        let action = text[..<colon]
        let resource = text[text.index(after: colon)...]
        let mode: Mode
        switch action {
        case "publish": mode = .publish
        case "read": mode = .request
        default: throw .invalidStreamID(reason: "the action before ':' is not publish or read")
        }
        guard !resource.isEmpty else { throw .invalidStreamID(reason: "no resource after '\(action):'") }
        guard !resource.contains(":") else { throw .invalidStreamID(reason: "more than one ':' in the short form") }
        self.init(resource: String(resource), mode: mode)
    }
}

extension SRTStreamID: CustomStringConvertible, CustomDebugStringConvertible {
    /// The mode only: the resource carries the stream key, so interpolation never shows it.
    public var description: String { "streamid(\(mode.rawValue), resource ***)" }
    public var debugDescription: String { description }
}
