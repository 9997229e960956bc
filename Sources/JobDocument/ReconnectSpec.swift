/// The job option `reconnect` (docs/ARCHITECTURE.md §4): how RTMP outputs, and a live input, retry after
/// losing their connection. `{"attempts": 10, "initial_delay_s": 0.5, "max_delay_s": 10}` are the defaults.
public struct ReconnectSpec: Sendable, Equatable {
    /// Tries in a row after a failure before an output gives up (0: never reconnect).
    public var attempts = ReconnectSpec.defaultAttempts
    public var initialDelaySeconds = ReconnectSpec.defaultInitialDelaySeconds
    public var maxDelaySeconds = ReconnectSpec.defaultMaxDelaySeconds

    public static let defaultAttempts = 10
    public static let defaultInitialDelaySeconds = 0.5
    public static let defaultMaxDelaySeconds = 10.0

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
        spec.attempts = fields.integer(JobLimits.reconnectAttempts, into: &self) ?? spec.attempts
        spec.initialDelaySeconds = fields.number(JobLimits.reconnectInitialDelay, into: &self) ?? spec.initialDelaySeconds
        let maxGiven = fields.number(JobLimits.reconnectMaxDelay, into: &self)
        // Only an initial delay given on its own may lift the default cap (never the other way round).
        spec.maxDelaySeconds = maxGiven ?? max(spec.maxDelaySeconds, spec.initialDelaySeconds)
        fields.reportUnknown(into: &self)
        if let maxGiven, maxGiven < spec.initialDelaySeconds {
            problem("reconnect.max_delay_s", "must be at least initial_delay_s (\(JobLimits.format(spec.initialDelaySeconds))), got \(JobLimits.format(maxGiven))")
        }
        return spec
    }
}
