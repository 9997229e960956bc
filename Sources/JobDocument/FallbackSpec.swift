/// The job option `fallback` (docs/ARCHITECTURE.md §4): keep every output fed with a slate while a live input is gone.
/// `{"after_s": 1, "max_s": 600, "slate": "PATH"}`; all three are optional inside the object, and the object's
/// presence turns the fallback on.
public struct FallbackSpec: Sendable, Equatable {
    /// Seconds without input before the slate starts (`JobLimits.fallbackAfter`).
    public var afterSeconds = FallbackSpec.defaultAfterSeconds
    /// Seconds of slate after which the job ends as an input timeout would end it (`JobLimits.fallbackMax`).
    public var maxSeconds = FallbackSpec.defaultMaxSeconds
    /// An image or video under the input root; nil: a generated card (colour bars).
    public var slate: String?

    public static let defaultAfterSeconds = 1.0
    public static let defaultMaxSeconds = 600.0

    public init() {}
}

extension SpecValidator {
    mutating func fallbackSpec(_ value: JSONValue?, input: InputSpec?) -> FallbackSpec? {
        guard let value else { return nil }
        guard case let .object(object) = value else {
            problem("fallback", "must be an object, got \(value.typeName)")
            return nil
        }
        var spec = FallbackSpec()
        var fields = Fields(object: object, path: "fallback")
        spec.afterSeconds = fields.number(JobLimits.fallbackAfter, into: &self) ?? spec.afterSeconds
        spec.maxSeconds = fields.number(JobLimits.fallbackMax, into: &self) ?? spec.maxSeconds
        spec.slate = fields.string("slate", required: false, limit: JobLimits.slate, into: &self)
        fields.reportUnknown(into: &self)
        if let slate = spec.slate {
            if slate.isEmpty {
                problem("fallback.slate", "must name an image or video file, got an empty string")
            } else if PathPolicy.localPath(slate) == nil {
                problem("fallback.slate", "must be a file path under the input root, got the URL \(Redaction.redact(url: slate))")
            }
        }
        // A slate fills the gaps of a live input; a file input has none.
        if let input, !input.isNetwork {
            problem("fallback", "needs a live input (rtmp://, rtmps:// or srt://): a file input never drops")
        }
        return spec
    }
}
