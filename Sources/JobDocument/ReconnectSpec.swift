/// The job option `reconnect` (DESIGN §3, issue #3): how RTMP outputs, and a live input, retry after
/// losing their connection. `{"attempts": 10, "initial_delay_s": 0.5, "max_delay_s": 10}` are the defaults.
public struct ReconnectSpec: Sendable, Equatable {
    /// Tries in a row after a failure before an output gives up (0: never reconnect).
    public var attempts = ReconnectSpec.defaultAttempts
    public var initialDelaySeconds = ReconnectSpec.defaultInitialDelaySeconds
    public var maxDelaySeconds = ReconnectSpec.defaultMaxDelaySeconds

    public static let defaultAttempts = 10
    public static let defaultInitialDelaySeconds = 0.5
    public static let defaultMaxDelaySeconds = 10.0
    public static let maxAttempts = 10_000
    /// Longest backoff a job may ask for, seconds.
    public static let maxDelayLimit = 600.0

    public init() {}
}

extension SpecValidator {
    mutating func reconnectSpec(_ value: JSONValue?) -> ReconnectSpec {
        var spec = ReconnectSpec()
        guard let value else { return spec }
        guard case let .object(object) = value else {
            problem("reconnect", "must be an object, got \(value.typeName)")
            return spec
        }
        var fields = Fields(object: object, path: "reconnect")
        spec.attempts = fields.integer("attempts", into: &self, range: 0...ReconnectSpec.maxAttempts) ?? spec.attempts
        spec.initialDelaySeconds = fields.number("initial_delay_s", into: &self, minimum: 0.01, maximum: ReconnectSpec.maxDelayLimit) ?? spec.initialDelaySeconds
        let maxGiven = fields.number("max_delay_s", into: &self, minimum: 0.01, maximum: ReconnectSpec.maxDelayLimit)
        // Only an initial delay given on its own may lift the default cap (never the other way round).
        spec.maxDelaySeconds = maxGiven ?? max(spec.maxDelaySeconds, spec.initialDelaySeconds)
        fields.reportUnknown(into: &self)
        if let maxGiven, maxGiven < spec.initialDelaySeconds {
            problem("reconnect.max_delay_s", "must be at least initial_delay_s (\(SpecValidator.format(spec.initialDelaySeconds))), got \(SpecValidator.format(maxGiven))")
        }
        return spec
    }
}

extension SpecValidator {
    /// A listener checks the publisher's application and stream key against its URL, so both must be
    /// there: `rtmp://HOST:PORT/APP/KEY` (FFmpeg compares the key with the URL's last path segment).
    mutating func checkListenURL(_ url: String) {
        guard let schemeEnd = url.range(of: "://") else { return }
        let rest = url[schemeEnd.upperBound...]
        let path = rest.firstIndex(of: "/").map { rest[$0...] } ?? ""
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        if url.contains("?") || segments.count != 2 || segments.contains(where: \.isEmpty) {
            problem("input.url", "a listening input needs rtmp://HOST:PORT/APP/STREAM_KEY (one application, one key, no query), got \(quoted(url))")
        }
    }
}
