/// Every failure of the job store, with a message fit for the CLI and the logs.
public enum JobStoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The database file could not be created or opened (path, then the cause).
    case cannotOpen(path: String, reason: String)
    /// No row in `jobs` has this id.
    case jobNotFound(id: String)
    /// The job has no output at this index.
    case outputNotFound(jobID: String, index: Int)
    /// The state machine forbids this move (`JobLifecycle`).
    case illegalTransition(jobID: String?, from: JobState, to: JobState)
    /// Event data could not be encoded as JSON.
    case invalidEventData(reason: String)
    /// The job had secrets, and they were not stored (no key was configured when it was recorded).
    case secretsNotStored(jobID: String)
    /// The job's sealed secrets cannot be opened (no key, an unknown key, a damaged row).
    case secrets(jobID: String, SecretsError)
    /// SQLite (through GRDB) failed; the text is GRDB's description, which omits statement arguments.
    case database(String)

    /// A sentence naming what failed and why.
    public var description: String {
        switch self {
        case let .cannotOpen(path, reason):
            "cannot open job database \(path): \(reason)"
        case let .jobNotFound(id):
            "no job with id '\(id)'"
        case let .outputNotFound(jobID, index):
            "job '\(jobID)' has no output #\(index)"
        case let .illegalTransition(jobID?, from, to):
            "job '\(jobID)' cannot go from \(from.rawValue) to \(to.rawValue)"
        case let .illegalTransition(nil, from, to):
            "a job cannot go from \(from.rawValue) to \(to.rawValue)"
        case let .invalidEventData(reason):
            "event data is not encodable as JSON: \(reason)"
        case let .secretsNotStored(jobID):
            "job '\(jobID)' has secrets (stream keys or credentials) that were not stored: no SLUICE_SECRETS_KEY or SLUICE_SECRETS_KEY_FILE was set when it was recorded; submit its spec again with sluice enqueue"
        case let .secrets(jobID, error):
            "job '\(jobID)': \(error)"
        case let .database(message):
            "job database error: \(message)"
        }
    }
}
