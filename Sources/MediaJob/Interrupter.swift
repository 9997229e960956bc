import Foundation
import Synchronization

/// Cancellation and stall deadlines for blocking libav calls, seen by FFmpeg through an `AVIOInterruptCB`
/// (installed on every context before it opens). Any thread may cancel; FFmpeg polls from the I/O thread.
public final class Interrupter: Sendable {
    private let cancelled = Atomic<Bool>(false)
    /// Monotonic deadline in nanoseconds (0 = none) for the call currently blocking.
    private let deadline = Atomic<UInt64>(0)

    public init() {}

    /// Asks every blocking call that polls this interrupter to return `AVERROR_EXIT`.
    public func cancel() { cancelled.store(true, ordering: .releasing) }

    public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Arms a deadline `seconds` from now for the next blocking call; `nil` disarms it.
    public func arm(seconds: Double?) {
        guard let seconds, seconds > 0 else {
            deadline.store(0, ordering: .releasing)
            return
        }
        deadline.store(Interrupter.deadline(afterSeconds: seconds), ordering: .releasing)
    }

    /// True once the armed deadline has passed.
    public var isPastDeadline: Bool {
        let limit = deadline.load(ordering: .acquiring)
        return limit != 0 && Interrupter.now() > limit
    }

    package var shouldInterrupt: Bool { isCancelled || isPastDeadline }

    package static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// The monotonic instant `seconds` from now; a deadline past the clock's range is "never" (UInt64.max).
    public static func deadline(afterSeconds seconds: Double) -> UInt64 {
        ClockConversion.instant(now(), plusSeconds: seconds)
    }
}
