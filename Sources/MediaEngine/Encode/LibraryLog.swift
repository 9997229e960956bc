import CFFmpeg

/// FFmpeg's own log (stderr, process-wide). Encoders log their statistics at info level; a worker's stderr
/// is for its progress and errors, and every failure Sluice reports already carries FFmpeg's message.
enum LibraryLog {
    /// Lowers FFmpeg's log to errors, once per process (a lazy global runs its initializer exactly once).
    static func limitToErrors() { _ = limited }

    private static let limited: Bool = {
        av_log_set_level(AV_LOG_ERROR)
        return true
    }()
}
