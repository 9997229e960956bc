import Foundation

/// The worker's log lines on standard error, as text or one JSON object per line. Callers pass text that
/// is already redacted (store records, `Redaction`, the broker's redacted URL).
public struct WorkerLog: Sendable {
    /// How each line is written.
    public enum Format: String, Sendable, CaseIterable {
        /// `2026-11-21T05:00:00.000Z worker-1 job=cam42: running (attempt 1)`.
        case text
        /// `{"at":"…","worker":"worker-1","job":"cam42","message":"…"}`.
        case json
    }

    public let format: Format
    public let workerID: String
    private let write: @Sendable (String) -> Void

    /// - Parameters:
    ///   - format: text or JSON lines.
    ///   - workerID: stamped on every line.
    ///   - write: where a finished line goes (standard error unless a test captures it).
    public init(format: Format, workerID: String, write: @escaping @Sendable (String) -> Void = WorkerLog.standardError) {
        self.format = format
        self.workerID = workerID
        self.write = write
    }

    /// Writes one line.
    /// - Parameters:
    ///   - message: what happened (redacted).
    ///   - job: the job it concerns, if any.
    public func callAsFunction(_ message: String, job: String? = nil) {
        let at = JobEvent.timestamp(Date())
        switch format {
        case .text:
            write("\(at) \(workerID)\(job.map { " job=\($0)" } ?? ""): \(message)")
        case .json:
            var fields: [String: JSONValue] = ["at": .string(at), "worker": .string(workerID), "message": .string(message)]
            if let job { fields["job"] = .string(job) }
            write(JSONValue.object(fields).jsonText())
        }
    }

    /// One `write(2)` per line, so lines from several threads never interleave.
    public static let standardError: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
