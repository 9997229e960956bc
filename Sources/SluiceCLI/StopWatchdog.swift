import Foundation

/// The last resort of a stop: armed by the first stop signal, it ends the process if it still runs `limit` later.
/// Every wait of a worker's stop is bounded on its own; this catches what nobody foresaw (a write to a hung disk, a
/// C call that ignores its interrupt), so an orchestrator never has to kill the worker, and its exit status says
/// that a bound did not hold.
final class StopWatchdog: @unchecked Sendable {
    // Reason: `timer` is guarded by `lock`; `limit` never changes.

    /// EX_SOFTWARE: the stop overran bounds that should have held, which is a bug.
    static let exitStatus: Int32 = 70

    private let limit: Duration
    private let lock = NSLock()
    private var timer: (any DispatchSourceTimer)?

    /// - Parameter limit: how long after the first signal the process may still run.
    init(limit: Duration) {
        self.limit = limit
    }

    /// Starts the countdown; later calls change nothing (a second signal does not push the deadline back).
    func arm() {
        lock.withLock {
            guard timer == nil else { return }
            let (seconds, attoseconds) = limit.components
            let timer = DispatchSource.makeTimerSource(queue: .global())
            timer.schedule(deadline: .now() + (Double(seconds) + Double(attoseconds) / 1e18))
            timer.setEventHandler { [limit] in
                printError("sluice: the stop did not finish within \(limit) of the signal; exiting with what still runs")
                // _exit, not exit: an exit handler could wait on whatever hangs.
                _exit(StopWatchdog.exitStatus)
            }
            timer.resume()
            self.timer = timer
        }
    }
}
