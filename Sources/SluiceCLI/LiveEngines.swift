import Sluice

/// Where the CLI gets the process's live engine.
///
/// LiveRelay's `LiveEngine` conforms to `LiveJobEngine` as soon as it has the contract's `start`, `run` and
/// `shutdown` (issue #12): then `make()` answers `LiveEngine()` and `extension LiveEngine: LiveJobEngine {}` is
/// added here. Until then main's stub supports no job (`LiveEngine.supports` is false), so there is no engine and
/// every job runs on `CopyPipeline`, as before.
enum LiveEngines {
    /// The engine for this process, or nil when none is built in.
    static func make() -> (any LiveJobEngine)? {
        nil
    }
}
