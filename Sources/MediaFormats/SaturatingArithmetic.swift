/// Timestamps and sizes from media are never trusted: arithmetic on them saturates at the ends
/// of `Int64` instead of trapping, so a crafted value yields a wrong-but-bounded time that later checks
/// (DTS repair, FLV's range checks) turn into a repair or a clear error.
extension Int64 {
    /// `self + other`, clamped to `Int64.min...Int64.max`.
    @inlinable public func addingSaturating(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other > 0 ? .max : .min
    }

    /// `self - other`, clamped to `Int64.min...Int64.max`.
    @inlinable public func subtractingSaturating(_ other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        guard overflow else { return difference }
        return other < 0 ? .max : .min
    }

    /// `self * other`, clamped to `Int64.min...Int64.max`.
    @inlinable public func multipliedSaturating(by other: Int64) -> Int64 {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        guard overflow else { return product }
        return (self < 0) == (other < 0) ? .max : .min
    }

    /// A time of `units` per second in `newUnits` per second (µs to a 90 kHz clock, ms to a track's timescale),
    /// rounded half away from zero; the product saturates as `multipliedSaturating` does.
    @inlinable public func rescaledSaturating(from units: Int64, to newUnits: Int64) -> Int64 {
        let scaled = multipliedSaturating(by: newUnits)
        let half = units / 2
        return (scaled >= 0 ? scaled.addingSaturating(half) : scaled.subtractingSaturating(half)) / units
    }

    /// `value` rounded to nearest and clamped to `Int64`'s range; NaN is nil (no time can be made of it).
    @inlinable public static func saturating(_ value: Double) -> Int64? {
        guard !value.isNaN else { return nil }
        let rounded = value.rounded()
        // 2^63 is the first Double above Int64.max; Int64.min (−2^63) is exact.
        if rounded >= 9_223_372_036_854_775_808.0 { return .max }
        if rounded <= -9_223_372_036_854_775_808.0 { return .min }
        return Int64(rounded)
    }
}
