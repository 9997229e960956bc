// docs/ARCHITECTURE.md §6: timestamps are ISO-8601 UTC text, readable in the sqlite3 shell.
import Foundation
import GRDB

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one text form of every time column: ISO-8601 UTC with milliseconds (`2026-11-21T05:19:16.123Z`),
/// fixed width so that text comparison in SQL orders by time.
///
/// Hand-written rather than `Date.ISO8601FormatStyle`: that style truncates binary float error
/// (`…16.123` printed as `…16.122`) and accepts out-of-range fields such as hour 25.
enum Timestamp {
    /// `YYYY-MM-DDTHH:MM:SS` is 19 characters; `.sss` and `Z` follow.
    private static let secondsPrefixLength = 19
    /// Most fraction digits read; more precision than nanoseconds is noise in a `Double`.
    private static let maxFractionDigits = 9

    /// The column text for `date`, rounded to the nearest millisecond.
    static func format(_ date: Date) -> String {
        let totalMilliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        // Floor division keeps the millisecond part positive for dates before 1970.
        var seconds = totalMilliseconds / 1000
        var milliseconds = totalMilliseconds % 1000
        if milliseconds < 0 {
            seconds -= 1
            milliseconds += 1000
        }
        var time = time_t(seconds)
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil else {
            // Only years beyond `tm`'s range get here; plain seconds still sort and stay readable.
            return String(seconds)
        }
        return pad(Int(parts.tm_year) + 1900, 4) + "-" + pad(Int(parts.tm_mon) + 1, 2) + "-"
            + pad(Int(parts.tm_mday), 2) + "T" + pad(Int(parts.tm_hour), 2) + ":" + pad(Int(parts.tm_min), 2)
            + ":" + pad(Int(parts.tm_sec), 2) + "." + pad(Int(milliseconds), 3) + "Z"
    }

    /// The date in a column's text (`YYYY-MM-DDTHH:MM:SS[.fraction]Z`), or nil when it is anything else.
    static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= secondsPrefixLength + 1, bytes.last == UInt8(ascii: "Z") else { return nil }
        let separators: [(Int, UInt8)] = [(4, .init(ascii: "-")), (7, .init(ascii: "-")), (10, .init(ascii: "T")),
                                          (13, .init(ascii: ":")), (16, .init(ascii: ":"))]
        guard separators.allSatisfy({ bytes[$0.0] == $0.1 }),
            let year = number(bytes, 0..<4), let month = number(bytes, 5..<7), let day = number(bytes, 8..<10),
            let hour = number(bytes, 11..<13), let minute = number(bytes, 14..<16),
            let second = number(bytes, 17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60
        else { return nil }

        var fraction = 0.0
        let rest = bytes[secondsPrefixLength..<(bytes.count - 1)]
        if !rest.isEmpty {
            let digits = rest.dropFirst()
            guard rest.first == UInt8(ascii: "."), (1...maxFractionDigits).contains(digits.count),
                let value = number(bytes, digits.startIndex..<digits.endIndex)
            else { return nil }
            fraction = Double(value) / pow(10, Double(digits.count))
        }

        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        let seconds = timegm(&parts)
        // `timegm` normalizes 31 February into March; a changed day means the date does not exist.
        guard parts.tm_mday == Int32(day), parts.tm_mon == Int32(month - 1) else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(seconds) + fraction)
    }

    /// The decimal number in `bytes[range]`, or nil if any byte is not a digit.
    private static func number(_ bytes: [UInt8], _ range: Range<Int>) -> Int? {
        var value = 0
        for byte in bytes[range] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// `value` in decimal, zero-padded on the left to `width` digits.
    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}

extension Timestamp {
    /// How records decode their time columns: ISO text only, so a malformed time is a decoding error, not a guess.
    static let decodingStrategy = DatabaseDateDecodingStrategy.custom { value in
        String.fromDatabaseValue(value).flatMap(Timestamp.parse)
    }
}

/// A stored record whose time columns are `Timestamp` text: it decodes them with `Timestamp.decodingStrategy`.
public protocol TimestampedRecord: FetchableRecord {}

extension TimestampedRecord {
    /// Time columns are ISO-8601 text.
    public static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
        Timestamp.decodingStrategy
    }
}
