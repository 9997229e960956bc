// RFC 8216bis §4.2 attribute value types: decimal-integer and (signed-)decimal-floating-point, printed and read
// without Foundation so MediaFormats stays dependency-free.

/// Printing and reading the numbers a playlist carries.
public enum HLSNumber {
    /// A decimal-integer has at most 20 digits (it must fit 0...2^64 − 1).
    public static let maxIntegerDigits = 20
    /// The largest number of seconds a duration may have: far past any real playlist, small enough that
    /// microsecond arithmetic on it stays exact in `Int64`.
    public static let maxSeconds: Double = 1_000_000_000
    /// Fraction digits of an EXTINF or EXT-X-PART duration: microseconds, so thousands of summed durations
    /// stay within a millisecond of the media (FFmpeg's hlsenc prints six too).
    public static let durationFractionDigits = 6
    /// Fraction digits of a number of seconds in an attribute (PART-TARGET, HOLD-BACK, CAN-SKIP-UNTIL).
    public static let secondsFractionDigits = 3
    /// Fraction digits of FRAME-RATE: the spec asks for three.
    public static let frameRateFractionDigits = 3

    private static let powersOfTen: [Int64] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000]

    /// `value` with exactly `fractionDigits` (0...6) digits after the point, rounded half away from zero.
    /// NaN and negative values print as zero and values past `maxSeconds` as `maxSeconds`, so nothing a
    /// caller passes can produce text a decimal-floating-point reader rejects.
    public static func decimal(_ value: Double, fractionDigits: Int) -> String {
        let digits = min(max(fractionDigits, 0), powersOfTen.count - 1)
        let scale = powersOfTen[digits]
        let clamped = value.isNaN ? 0 : min(max(value, 0), maxSeconds)
        let scaled = Int64((clamped * Double(scale)).rounded(.toNearestOrAwayFromZero))
        let whole = String(scaled / scale)
        guard digits > 0 else { return whole }
        let fraction = String(scaled % scale)
        return whole + "." + String(repeating: "0", count: digits - fraction.count) + fraction
    }

    /// `value` rounded up to `fractionDigits` digits: for lower bounds (HOLD-BACK, CAN-SKIP-UNTIL) that must
    /// still hold once printed.
    public static func roundedUp(_ value: Double, fractionDigits: Int) -> Double {
        let scale = Double(powersOfTen[min(max(fractionDigits, 0), powersOfTen.count - 1)])
        let clamped = value.isNaN ? 0 : min(max(value, 0), maxSeconds)
        return (clamped * scale).rounded(.up) / scale
    }

    /// A decimal-integer: 1 to 20 ASCII digits that fit `UInt64`; nil otherwise.
    public static func integer(_ text: some StringProtocol) -> UInt64? {
        guard !text.isEmpty, text.utf8.count <= maxIntegerDigits, text.utf8.allSatisfy(isDigit) else { return nil }
        return UInt64(text)
    }

    /// A decimal-floating-point: digits with at most one point, at most `maxSeconds`; nil otherwise (no sign,
    /// exponent, "inf" or "nan", which the stdlib's `Double(_:)` would accept).
    public static func decimal(_ text: some StringProtocol) -> Double? {
        var points = 0
        var digits = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: ".") { points += 1 } else if isDigit(byte) { digits += 1 } else { return nil }
        }
        guard digits > 0, points <= 1, let value = Double(text), value <= maxSeconds else { return nil }
        return value
    }

    /// The nearest whole number of seconds, halves rounded up: the rounding the spec applies to EXTINF
    /// durations against EXT-X-TARGETDURATION (§4.4.3.1).
    public static func roundedSeconds(_ duration: Double) -> Int {
        let clamped = duration.isNaN ? 0 : min(max(duration, 0), maxSeconds)
        return Int(clamped.rounded(.toNearestOrAwayFromZero))
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
