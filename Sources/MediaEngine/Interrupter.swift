import CFFmpeg
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

    var shouldInterrupt: Bool { isCancelled || isPastDeadline }

    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// The monotonic instant `seconds` from now; a deadline past the clock's range is "never" (UInt64.max).
    public static func deadline(afterSeconds seconds: Double) -> UInt64 {
        ClockConversion.instant(now(), plusSeconds: seconds)
    }

    /// The C callback: `opaque` is an unretained pointer to the interrupter, kept alive by the context's owner.
    var callback: AVIOInterruptCB {
        AVIOInterruptCB(
            callback: { opaque in
                guard let opaque else { return 0 }
                return Unmanaged<Interrupter>.fromOpaque(opaque).takeUnretainedValue().shouldInterrupt ? 1 : 0
            },
            opaque: Unmanaged.passUnretained(self).toOpaque()
        )
    }
}

/// Seconds (from job documents, options or clocks) as the integer units FFmpeg and the monotonic clock
/// take. `UInt64(x)` traps when `x` is out of range or NaN; these clamp instead, so no value can crash a worker.
public enum ClockConversion {
    /// `value` truncated toward zero and clamped to `T`'s range; NaN is 0.
    public static func clamped<T: FixedWidthInteger>(_ value: Double, as type: T.Type = T.self) -> T {
        guard !value.isNaN else { return 0 }
        // Double(T.max) rounds up to 2^bits; anything below it converts exactly after truncation.
        if value >= Double(T.max) { return T.max }
        if value <= Double(T.min) { return T.min }
        return T(value)
    }

    /// Whole nanoseconds in `seconds`: negative and NaN are 0, huge values UInt64.max.
    public static func nanoseconds(_ seconds: Double) -> UInt64 { clamped(seconds * 1_000_000_000) }

    /// Whole microseconds (FFmpeg's `rw_timeout`, AV_TIME_BASE units), clamped to Int64.
    public static func microseconds(_ seconds: Double) -> Int64 { clamped(seconds * 1_000_000) }

    /// The monotonic instant `seconds` after `start` (nanoseconds); past the clock's range it is UInt64.max ("never").
    public static func instant(_ start: UInt64, plusSeconds seconds: Double) -> UInt64 {
        let (sum, overflow) = start.addingReportingOverflow(nanoseconds(seconds))
        return overflow ? .max : sum
    }

    /// Whole milliseconds, clamped to Int64.
    public static func milliseconds(_ seconds: Double) -> Int64 { clamped(seconds * 1000) }
}
