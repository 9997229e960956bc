import Foundation

/// A job, as DESIGN §3 (job spec v1) defines it, after validation.
public struct JobSpec: Sendable, Equatable {
    public var id: String
    public var input: InputSpec
    public var video: VideoSpec
    public var audio: AudioSpec
    public var outputs: [OutputSpec]
    /// Seconds after which a live job ends cleanly; 0 = until the input ends.
    public var maxDurationSeconds: Double
    /// AMQP priority, 0…9.
    public var priority: Int
    /// Attempts before a transiently failing job is dead-lettered.
    public var maxAttempts: Int
    /// The document as submitted (secrets included: used to retry), and the same with URLs redacted.
    public var document: JSONValue
    public var redactedDocument: JSONValue
    /// How RTMP outputs and a live input retry after losing their connection.
    public var reconnect = ReconnectSpec()

    public static let idPattern = "[A-Za-z0-9._:-]{1,128}"
    public static let maxOutputs = 16
    public static let defaultMaxAttempts = 3
}

public struct InputSpec: Sendable, Equatable {
    public var url: String
    /// Be the RTMP server for one publisher instead of pulling.
    public var listen: Bool
    /// Bounds connecting and any stall in reading, in seconds.
    public var timeoutSeconds: Double
    /// Frame rate given to raw Annex B input that carries no timing.
    public var fps: Double?
    /// Read at 1× (like `ffmpeg -re`); `nil` = the default (a file input feeding an RTMP output).
    public var realtime: Bool?
    public var isNetwork: Bool { url.lowercased().hasPrefix("rtmp://") || url.lowercased().hasPrefix("rtmps://") }
    public static let defaultTimeoutSeconds = 10.0
}

public enum StreamMode: String, Sendable, Equatable, CaseIterable {
    case copy, encode, drop
}

public enum VideoEncoderChoice: String, Sendable, Equatable, CaseIterable {
    case auto, vaapi, software
}

public struct VideoSpec: Sendable, Equatable {
    public var mode: StreamMode = .copy
    public var encoder: VideoEncoderChoice = .auto
    public var device: String = VideoSpec.defaultDevice
    public var bitrateKbps: Int?
    public var width: Int?
    public var height: Int?
    public var fps: Double?
    public var gopSeconds: Double?
    public var profile: String?
    public static let defaultDevice = "/dev/dri/renderD128"
    public static let profiles = ["baseline", "constrained_baseline", "main", "high"]
    public init() {}
}

public struct AudioSpec: Sendable, Equatable {
    public var mode: StreamMode = .copy
    public var bitrateKbps: Int?
    public var sampleRate: Int?
    public var channels: Int?
    public init() {}
}

public enum OutputFormat: String, Sendable, Equatable, CaseIterable {
    /// FLV file or RTMP publish.
    case flv
    /// Raw AAC with ADTS headers (`.aac`).
    case adts
    /// Raw H.264 with start codes (`.h264`, `.264`).
    case annexb

    /// The format a path's extension implies.
    public static func forExtension(_ ext: String) -> OutputFormat? {
        switch ext.lowercased() {
        case "flv": return .flv
        case "aac", "adts": return .adts
        case "h264", "264", "avc": return .annexb
        default: return nil
        }
    }
}

public struct OutputSpec: Sendable, Equatable {
    public var url: String
    public var format: OutputFormat
    public var isNetwork: Bool { InputSpec(url: url, listen: false, timeoutSeconds: 0).isNetwork }
    /// The URL with stream key and credentials masked.
    public var redactedURL: String { Redaction.redact(url: url) }
}

/// One thing wrong with a job document, named by its key path (`outputs[1].format`).
public struct SpecProblem: Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var message: String
    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

/// Why a job document was refused: every problem found, and the job id when it could be read.
public struct JobSpecError: Error, Sendable, Equatable, CustomStringConvertible {
    public var id: String?
    public var problems: [SpecProblem]
    public var description: String {
        "invalid job\(id.map { " '\($0)'" } ?? ""): " + problems.map(\.description).joined(separator: "; ")
    }
}

extension JobSpec {
    /// Parses and validates a job document. Throws `JobSpecError` listing every problem by key path.
    public static func parse(_ data: Data) throws(JobSpecError) -> JobSpec {
        let document: JSONValue
        do {
            document = try JSONValue.parse(data)
        } catch {
            throw JobSpecError(id: nil, problems: [SpecProblem(path: "", message: "not valid JSON: \(JobSpec.describe(decodingError: error))")])
        }
        return try parse(document)
    }

    public static func parse(_ document: JSONValue) throws(JobSpecError) -> JobSpec {
        var validator = SpecValidator()
        let spec = validator.job(document)
        guard let spec, validator.problems.isEmpty else {
            throw JobSpecError(id: validator.readableID, problems: validator.problems)
        }
        return spec
    }

    static func describe(decodingError error: any Error) -> String {
        if case let DecodingError.dataCorrupted(context) = error {
            let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return underlying ?? context.debugDescription
        }
        return "\(error)"
    }
}

/// Walks a job document once, collecting problems instead of stopping at the first.
struct SpecValidator {
    var problems: [SpecProblem] = []
    var readableID: String?

    mutating func problem(_ path: String, _ message: String) {
        problems.append(SpecProblem(path: path, message: message))
    }

    mutating func job(_ document: JSONValue) -> JobSpec? {
        guard case let .object(root) = document else {
            problem("", "a job must be a JSON object, got \(document.typeName)")
            return nil
        }
        var fields = Fields(object: root, path: "")
        let id = fields.string("id", required: true, into: &self)
        if let id {
            if id.range(of: "^\(JobSpec.idPattern)$", options: .regularExpression) == nil {
                problem("id", "must match \(JobSpec.idPattern), got \(quoted(id))")
            } else {
                readableID = id
            }
        }
        let input = inputSpec(fields.take("input"), required: true)
        let video = videoSpec(fields.take("video"))
        let audio = audioSpec(fields.take("audio"))
        let outputs = outputSpecs(fields.take("outputs"))
        let maxDuration = fields.number("max_duration_s", into: &self, minimum: 0) ?? 0
        let priority = fields.integer("priority", into: &self, range: 0...9) ?? 0
        let maxAttempts = fields.integer("max_attempts", into: &self, range: 1...100) ?? JobSpec.defaultMaxAttempts
        let reconnect = reconnectSpec(fields.take("reconnect"))
        fields.reportUnknown(into: &self)

        for (index, output) in outputs.enumerated() {
            let path = "outputs[\(index)]"
            switch output.format {
            case .adts where audio.mode == .drop:
                problem(path, "an ADTS output needs audio, but audio.mode is drop")
            case .annexb where video.mode == .drop:
                problem(path, "an Annex B output needs video, but video.mode is drop")
            case .flv where video.mode == .drop && audio.mode == .drop:
                problem(path, "an FLV output needs audio or video, but both are dropped")
            default: break
            }
        }
        if video.mode == .drop && audio.mode == .drop { problem("", "video and audio are both dropped: nothing to do") }
        if let input, input.listen, !input.isNetwork { problem("input.listen", "listen needs an rtmp:// URL") }
        if let input, input.listen, input.isNetwork { checkListenURL(input.url) }

        guard let id, let input, problems.isEmpty else { return nil }
        return JobSpec(
            id: id, input: input, video: video, audio: audio, outputs: outputs,
            maxDurationSeconds: maxDuration, priority: priority, maxAttempts: maxAttempts,
            document: document, redactedDocument: JobSpec.redact(document), reconnect: reconnect
        )
    }

    private mutating func inputSpec(_ value: JSONValue?, required: Bool) -> InputSpec? {
        switch value {
        case nil:
            problem("input", "is required")
            return nil
        case let .string(url)?:
            guard checkInputURL(url, path: "input") else { return nil }
            return InputSpec(url: url, listen: false, timeoutSeconds: InputSpec.defaultTimeoutSeconds)
        case let .object(object)?:
            var fields = Fields(object: object, path: "input")
            let url = fields.string("url", required: true, into: &self)
            let listen = fields.bool("listen", into: &self) ?? false
            let timeout = fields.number("timeout_s", into: &self, minimum: 0.001) ?? InputSpec.defaultTimeoutSeconds
            let fps = fields.number("fps", into: &self, minimum: 0.001)
            let realtime = fields.bool("realtime", into: &self)
            fields.reportUnknown(into: &self)
            guard let url, checkInputURL(url, path: "input.url") else { return nil }
            return InputSpec(url: url, listen: listen, timeoutSeconds: timeout, fps: fps, realtime: realtime)
        case let other?:
            problem("input", "must be a URL string or an object, got \(other.typeName)")
            return nil
        }
    }

    private mutating func checkInputURL(_ url: String, path: String) -> Bool {
        guard !url.isEmpty else {
            problem(path, "must not be empty")
            return false
        }
        if let scheme = SpecValidator.scheme(of: url), !["file", "rtmp", "rtmps"].contains(scheme) {
            problem(path, "protocol \(quoted(scheme + "://")) is not allowed; use a file path, file://, rtmp:// or rtmps://")
            return false
        }
        return true
    }

    /// The URL scheme, when the string has one (`C:` style drive letters do not occur on Linux).
    static func scheme(of url: String) -> String? {
        guard let colon = url.firstIndex(of: ":") else { return nil }
        let scheme = url[..<colon]
        guard let first = scheme.first, first.isLetter,
              scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }),
              url[colon...].hasPrefix("://") else { return nil }
        return scheme.lowercased()
    }

    /// The extension of a path's last component, as `NSString.pathExtension` reads it ("a/b.flv/" → "flv",
    /// ".flv" → ""). Not NSString's: on Linux it traps on slash runs such as "///a//" (found by fuzzing).
    static func pathExtension(of path: String) -> String {
        var name = Substring(path)
        while name.hasSuffix("/") { name = name.dropLast() }
        if let slash = name.lastIndex(of: "/") { name = name[name.index(after: slash)...] }
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }

    private mutating func videoSpec(_ value: JSONValue?) -> VideoSpec {
        var spec = VideoSpec()
        guard let value else { return spec }
        guard case let .object(object) = value else {
            problem("video", "must be an object, got \(value.typeName)")
            return spec
        }
        var fields = Fields(object: object, path: "video")
        spec.mode = fields.choice("mode", StreamMode.self, into: &self) ?? .copy
        spec.encoder = fields.choice("encoder", VideoEncoderChoice.self, into: &self) ?? .auto
        spec.device = fields.string("device", required: false, into: &self) ?? VideoSpec.defaultDevice
        spec.bitrateKbps = fields.integer("bitrate_kbps", into: &self, range: 16...200_000)
        spec.width = fields.integer("width", into: &self, range: 16...8192)
        spec.height = fields.integer("height", into: &self, range: 16...8192)
        spec.fps = fields.number("fps", into: &self, minimum: 1, maximum: 240)
        spec.gopSeconds = fields.number("gop_s", into: &self, minimum: 0.1, maximum: 60)
        if let profile = fields.string("profile", required: false, into: &self) {
            if VideoSpec.profiles.contains(profile) { spec.profile = profile } else {
                problem("video.profile", "must be one of \(VideoSpec.profiles.joined(separator: ", ")), got \(quoted(profile))")
            }
        }
        for (key, size) in [("width", spec.width), ("height", spec.height)] {
            if let size, size % 2 != 0 { problem("video.\(key)", "must be even, got \(size)") }
        }
        fields.reportUnknown(into: &self)
        if spec.mode != .encode {
            for key in ["encoder", "device", "bitrate_kbps", "width", "height", "fps", "gop_s", "profile"] where object[key] != nil {
                problem("video.\(key)", "only applies when video.mode is encode")
            }
        }
        return spec
    }

    private mutating func audioSpec(_ value: JSONValue?) -> AudioSpec {
        var spec = AudioSpec()
        guard let value else { return spec }
        guard case let .object(object) = value else {
            problem("audio", "must be an object, got \(value.typeName)")
            return spec
        }
        var fields = Fields(object: object, path: "audio")
        spec.mode = fields.choice("mode", StreamMode.self, into: &self) ?? .copy
        spec.bitrateKbps = fields.integer("bitrate_kbps", into: &self, range: 8...1024)
        spec.sampleRate = fields.integer("sample_rate", into: &self, range: 8000...96000)
        spec.channels = fields.integer("channels", into: &self, range: 1...8)
        fields.reportUnknown(into: &self)
        if spec.mode != .encode {
            for key in ["bitrate_kbps", "sample_rate", "channels"] where object[key] != nil {
                problem("audio.\(key)", "only applies when audio.mode is encode")
            }
        }
        return spec
    }

    private mutating func outputSpecs(_ value: JSONValue?) -> [OutputSpec] {
        guard let value else {
            problem("outputs", "is required (1 to \(JobSpec.maxOutputs) outputs)")
            return []
        }
        guard case let .array(items) = value else {
            problem("outputs", "must be an array, got \(value.typeName)")
            return []
        }
        if items.isEmpty || items.count > JobSpec.maxOutputs {
            problem("outputs", "must hold 1 to \(JobSpec.maxOutputs) outputs, got \(items.count)")
        }
        var outputs: [OutputSpec] = []
        var seen: [String: Int] = [:]
        for (index, item) in items.enumerated() {
            let path = "outputs[\(index)]"
            var url: String?
            var format: OutputFormat?
            var formatGiven = false
            switch item {
            case let .string(text):
                url = text
            case let .object(object):
                var fields = Fields(object: object, path: path)
                url = fields.string("url", required: true, into: &self)
                formatGiven = object["format"] != nil
                format = fields.choice("format", OutputFormat.self, into: &self)
                fields.reportUnknown(into: &self)
            default:
                problem(path, "must be a URL string or an object, got \(item.typeName)")
                continue
            }
            guard let url else { continue }
            guard !url.isEmpty else {
                problem("\(path).url", "must not be empty")
                continue
            }
            let scheme = SpecValidator.scheme(of: url)
            if let scheme, !["file", "rtmp", "rtmps"].contains(scheme) {
                problem("\(path).url", "protocol \(quoted(scheme + "://")) is not allowed; use a path, file://, rtmp:// or rtmps://")
                continue
            }
            let isNetwork = scheme == "rtmp" || scheme == "rtmps"
            if formatGiven && format == nil { continue }
            if format == nil {
                if isNetwork {
                    format = .flv
                } else {
                    let ext = SpecValidator.pathExtension(of: url)
                    format = OutputFormat.forExtension(ext)
                    if format == nil {
                        problem("\(path).url", "cannot tell the format from \(ext.isEmpty ? "a path without an extension" : "the extension .\(ext)"); name one with \"format\": flv, adts or annexb")
                        continue
                    }
                }
            }
            if isNetwork && format != .flv {
                problem("\(path).format", "RTMP outputs carry FLV, not \(format?.rawValue ?? "?")")
                continue
            }
            if let previous = seen[url] {
                problem("\(path).url", "is the same as outputs[\(previous)].url")
                continue
            }
            seen[url] = index
            if let format { outputs.append(OutputSpec(url: url, format: format)) }
        }
        return outputs
    }

    func quoted(_ text: String) -> String { "\"\(Redaction.redact(url: text))\"" }
}

/// The keys of one JSON object, read once each; what is left unread is reported as unknown.
struct Fields {
    let object: [String: JSONValue]
    let path: String
    private var read: Set<String> = []

    init(object: [String: JSONValue], path: String) {
        self.object = object
        self.path = path
    }

    private func keyPath(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    mutating func take(_ key: String) -> JSONValue? {
        read.insert(key)
        if case .null? = object[key] { return nil }
        return object[key]
    }

    mutating func string(_ key: String, required: Bool, into validator: inout SpecValidator) -> String? {
        switch take(key) {
        case nil:
            if required { validator.problem(keyPath(key), "is required") }
            return nil
        case let .string(value)?: return value
        case let other?:
            validator.problem(keyPath(key), "must be a string, got \(other.typeName)")
            return nil
        }
    }

    mutating func bool(_ key: String, into validator: inout SpecValidator) -> Bool? {
        switch take(key) {
        case nil: return nil
        case let .bool(value)?: return value
        case let other?:
            validator.problem(keyPath(key), "must be true or false, got \(other.typeName)")
            return nil
        }
    }

    mutating func number(_ key: String, into validator: inout SpecValidator, minimum: Double, maximum: Double = .greatestFiniteMagnitude) -> Double? {
        switch take(key) {
        case nil: return nil
        case let .number(value)?:
            guard value.isFinite, value >= minimum, value <= maximum else {
                let upper = maximum == .greatestFiniteMagnitude ? "" : " and at most \(SpecValidator.format(maximum))"
                validator.problem(keyPath(key), "must be at least \(SpecValidator.format(minimum))\(upper), got \(SpecValidator.format(value))")
                return nil
            }
            return value
        case let other?:
            validator.problem(keyPath(key), "must be a number, got \(other.typeName)")
            return nil
        }
    }

    mutating func integer(_ key: String, into validator: inout SpecValidator, range: ClosedRange<Int>) -> Int? {
        switch take(key) {
        case nil: return nil
        case let .number(value)?:
            guard value.rounded() == value, value >= Double(range.lowerBound), value <= Double(range.upperBound) else {
                validator.problem(keyPath(key), "must be a whole number from \(range.lowerBound) to \(range.upperBound), got \(SpecValidator.format(value))")
                return nil
            }
            return Int(value)
        case let other?:
            validator.problem(keyPath(key), "must be a whole number, got \(other.typeName)")
            return nil
        }
    }

    mutating func choice<T: RawRepresentable & CaseIterable>(_ key: String, _ type: T.Type, into validator: inout SpecValidator) -> T? where T.RawValue == String {
        guard let text = string(key, required: false, into: &validator) else { return nil }
        guard let value = T(rawValue: text) else {
            let allowed = T.allCases.map(\.rawValue).joined(separator: ", ")
            validator.problem(keyPath(key), "must be one of \(allowed), got \"\(text)\"")
            return nil
        }
        return value
    }

    func reportUnknown(into validator: inout SpecValidator) {
        for key in object.keys.sorted() where !read.contains(key) {
            validator.problem(keyPath(key), "unknown key")
        }
    }
}

extension SpecValidator {
    static func format(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

extension JobSpec {
    /// The document with every URL string redacted (for events, listings and `jobs show`).
    static func redact(_ value: JSONValue) -> JSONValue {
        switch value {
        case let .string(text): return .string(Redaction.redact(url: text))
        case let .array(items): return .array(items.map(redact))
        case let .object(object): return .object(object.mapValues(redact))
        default: return value
        }
    }

    /// The input URL with secrets masked.
    public var redactedInput: String { Redaction.redact(url: input.url) }

    /// Every URL of this job that may carry a secret, for scrubbing free text such as FFmpeg messages.
    public var secretURLs: [String] { [input.url] + outputs.map(\.url) }
}
