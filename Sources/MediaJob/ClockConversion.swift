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
