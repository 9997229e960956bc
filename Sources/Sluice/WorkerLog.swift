import Foundation
import Logging
import JobDocument

/// The worker's log lines on standard error through swift-log, as text or one JSON object per line. Callers
/// pass text that is already redacted (store records, `Redaction`, the broker's redacted URL).
public struct WorkerLog: Sendable {
    /// How each line is written.
    public enum Format: String, Sendable, CaseIterable {
        /// `2026-11-21T05:00:00.000Z worker-1 job=cam42 state=running attempt=1: job.running (attempt 1)`.
        case text
        /// `{"at":"…","level":"info","worker":"worker-1","job":"cam42","state":"running","attempt":1,"message":"…"}`.
        case json
    }

    public let format: Format
    public let workerID: String
    /// The logger the lines go through; other components (the HTTP server) log through it too.
    public let logger: Logger

    /// - Parameters:
    ///   - format: text or JSON lines.
    ///   - workerID: stamped on every line.
    ///   - write: where a finished line goes (standard error unless a test captures it).
    public init(format: Format, workerID: String, write: @escaping @Sendable (String) -> Void = LogLineHandler.standardError) {
        self.format = format
        self.workerID = workerID
        var logger = Logger(label: "sluice.worker") { _ in LogLineHandler(format: format, write: write) }
        logger[metadataKey: "worker"] = .string(workerID)
        self.logger = logger
    }

    /// Sends every library's swift-log output (the HTTP server's) through `LogLineHandler` in `format`, at
    /// `warning` and above. Once per process, before anything logs.
    public static func bootstrapLoggingSystem(format: Format) {
        LoggingSystem.bootstrap { _ in
            var handler = LogLineHandler(format: format)
            handler.logLevel = .warning
            return handler
        }
    }

    /// Writes one line.
    /// - Parameters:
    ///   - message: what happened (redacted).
    ///   - job: the job it concerns, if any.
    ///   - state: the state the job is in, for lines about a job's event.
    ///   - attempt: the job's attempt number, with `state`.
    ///   - level: `.info` unless something went wrong.
    public func callAsFunction(_ message: String, job: String? = nil, state: String? = nil, attempt: Int? = nil,
                               level: Logger.Level = .info) {
        var metadata: Logger.Metadata = [:]
        if let job { metadata["job"] = .string(job) }
        if let state { metadata["state"] = .string(state) }
        if let attempt { metadata["attempt"] = .stringConvertible(attempt) }
        logger.log(level: level, "\(message)", metadata: metadata)
    }
}

/// A swift-log handler writing one line per message: text (`<time> <worker> key=value…: message`) or a JSON
/// object. Every line is one `write(2)`, so lines from several threads never interleave.
public struct LogLineHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    public var logLevel: Logger.Level = .info
    public let format: WorkerLog.Format
    private let write: @Sendable (String) -> Void

    /// Metadata keys written first, in this order; the rest follow sorted.
    static let leadingKeys = ["job", "state", "attempt"]

    /// - Parameters:
    ///   - format: text or JSON.
    ///   - write: where a finished line goes.
    public init(format: WorkerLog.Format, write: @escaping @Sendable (String) -> Void = LogLineHandler.standardError) {
        self.format = format
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields = metadata
        if let provided = metadataProvider?.get() { fields.merge(provided) { _, new in new } }
        if let own = event.metadata { fields.merge(own) { _, new in new } }
        let at = JobsFormatting.iso(Date())
        let worker = fields.removeValue(forKey: "worker")
        let keys = Self.leadingKeys.filter { fields[$0] != nil } + fields.keys.filter { !Self.leadingKeys.contains($0) }.sorted()
        switch format {
        case .text:
            var line = at
            if let worker { line += " \(worker)" }
            if event.level >= .warning { line += " \(event.level.rawValue)" }
            for key in keys { line += " \(key)=\(fields[key].map { "\($0)" } ?? "")" }
            write(line + ": \(event.message)")
        case .json:
            var object: [String: JSONValue] = ["at": .string(at), "level": .string(event.level.rawValue),
                                               "message": .string(event.message.description)]
            if let worker { object["worker"] = Self.json(worker) }
            for key in keys { if let value = fields[key] { object[key] = Self.json(value) } }
            write(JSONValue.object(object).jsonText())
        }
    }

    /// Metadata as JSON: numbers stay numbers (`attempt`), nested values become arrays and objects.
    static func json(_ value: Logger.MetadataValue) -> JSONValue {
        switch value {
        case let .string(text): return .string(text)
        case let .stringConvertible(convertible):
            if let number = convertible as? any BinaryInteger { return .number(Double(number)) }
            if let number = convertible as? Double { return .number(number) }
            return .string(convertible.description)
        case let .array(values): return .array(values.map(json))
        case let .dictionary(values): return .object(values.mapValues(json))
        }
    }

    /// One `write(2)` per line.
    public static let standardError: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
