import Foundation
import Testing

@testable import JobStore

/// Dates and the column text they must produce.
private let formatCases: [(seconds: TimeInterval, text: String)] = [
    (0, "1970-01-01T00:00:00.000Z"),
    (1_795_238_356.123, "2026-11-21T05:19:16.123Z"),
    // Regression: Foundation's style printed this as .122 (binary float error truncated).
    (1_795_238_356.123, "2026-11-21T05:19:16.123Z"),
    // Rounded to the nearest millisecond, carrying into the next second.
    (1_795_238_356.9996, "2026-11-21T05:19:17.000Z"),
    (-0.5, "1969-12-31T23:59:59.500Z"),
    (951_782_400, "2000-02-29T00:00:00.000Z"),
]

/// Column text that must not decode as a time.
private let malformedTexts = [
    "", "yesterday", "2026-11-21", "1795238356",
    "2026-11-21 05:19:16.123Z",  // space instead of T
    "2026-11-21T05:19:16.123",  // no Z: local time is ambiguous
    "2026-11-21T05:19:16.123+01:00",
    "2026-13-01T00:00:00.000Z", "2026-02-30T00:00:00.000Z",
    // Regression: Foundation's parser rolled hour 25 over into the next day.
    "2026-11-21T25:00:00Z",
    "2026-11-21T05:60:00Z", "2026-11-21T05:19:16.Z", "2026-11-21T05:19:16.1234567890Z", "2026-11-2lT05:19:16Z",
]

@Suite struct TimestampTests {
    @Test(arguments: formatCases.indices)
    func formatsISO8601UTCWithMilliseconds(case index: Int) {
        let row = formatCases[index]
        #expect(Timestamp.format(Date(timeIntervalSince1970: row.seconds)) == row.text)
    }

    @Test(arguments: formatCases.indices)
    func parsesWhatItFormats(case index: Int) throws {
        let row = formatCases[index]
        let parsed = try #require(Timestamp.parse(row.text))
        #expect(abs(parsed.timeIntervalSince1970 - row.seconds) < 0.001)
    }

    @Test func parsesHandTypedTimeWithoutMilliseconds() throws {
        let parsed = try #require(Timestamp.parse("2026-11-21T05:19:16Z"))
        #expect(parsed.timeIntervalSince1970 == 1_795_238_356)
    }

    @Test func parsesLeapDayAndFraction() throws {
        let parsed = try #require(Timestamp.parse("2024-02-29T12:00:00.5Z"))
        #expect(Timestamp.format(parsed) == "2024-02-29T12:00:00.500Z")
    }

    @Test(arguments: malformedTexts)
    func rejectsMalformedText(text: String) {
        #expect(Timestamp.parse(text) == nil)
    }

    /// `jobs(since:)` compares the text in SQL, so text order must be time order.
    @Test func textOrderIsTimeOrder() {
        let dates = [0, 9.999, 10, 999_999_999.5, 1_000_000_000, 1_795_238_356.123].map(Date.init(timeIntervalSince1970:))
        let texts = dates.map(Timestamp.format)
        #expect(texts == texts.sorted())
    }
}
