import LiveRelay
import Sluice

/// Where the CLI gets the process's live engine: one LiveRelay engine (its event loops) per process.
enum LiveEngines {
    /// The engine for this process.
    static func make() -> (any LiveJobEngine)? {
        LiveEngine()
    }
}
