import Foundation
import Testing
@testable import MediaJob

/// Seconds from jobs and options become nanoseconds and microseconds without trapping (a
/// `timeout_s` of 1e20 crashed the worker when the input deadline was armed).
@Suite("Clock conversion")
struct ClockConversionTests {
    @Test("clamped: NaN is 0, out-of-range values take the nearest bound, others truncate", arguments: [
        (Double.nan, Int64(0)), (.infinity, .max), (-.infinity, .min), (1e20, .max), (-1e20, .min),
        (9.223372036854775807e18, .max), (-9.223372036854775808e18, .min), (1.9, 1), (-1.9, -1), (-0.0, 0),
    ])
    func clampedInt64(_ value: Double, _ expected: Int64) {
        #expect(ClockConversion.clamped(value, as: Int64.self) == expected)
    }

    @Test("nanoseconds and microseconds of hostile values")
    func units() {
        #expect(ClockConversion.nanoseconds(1e20) == .max)
        #expect(ClockConversion.nanoseconds(-5) == 0)
        #expect(ClockConversion.nanoseconds(.nan) == 0)
        #expect(ClockConversion.nanoseconds(1.5) == 1_500_000_000)
        #expect(ClockConversion.microseconds(1e20) == .max)
        #expect(ClockConversion.microseconds(4) == 4_000_000)
        #expect(ClockConversion.milliseconds(-1e300) == .min)
    }

    @Test("an instant past the clock's range is never, not a wrapped-around past")
    func instant() {
        #expect(ClockConversion.instant(.max - 10, plusSeconds: 1) == .max)
        #expect(ClockConversion.instant(100, plusSeconds: 1e-6) == 1100)
    }

    @Test("arming 1e20 s, infinity or NaN does not trap; only a finite positive deadline can pass", arguments: [1e20, Double.infinity, Double.nan, -1])
    func arm(_ seconds: Double) {
        let interrupter = Interrupter()
        interrupter.arm(seconds: seconds)
        #expect(!interrupter.isPastDeadline)
    }

    @Test("a short deadline still passes")
    func shortDeadline() {
        let interrupter = Interrupter()
        interrupter.arm(seconds: 0.001)
        usleep(5000)
        #expect(interrupter.isPastDeadline)
    }
}
