// RFC 8216bis §4.4.4.6 EXT-X-PROGRAM-DATE-TIME: an ISO/IEC 8601:2004 date-time with a time zone, which the spec
// asks to carry milliseconds ("SHOULD indicate a time zone and fractional parts of seconds, to millisecond accuracy").

/// The absolute time of a segment's first sample, as EXT-X-PROGRAM-DATE-TIME prints it:
/// `2025-09-23T23:10:56.316Z`, or with a numeric offset such as `+02:00`.
public struct HLSProgramDateTime: Sendable, Hashable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var millisecondsSince1970: Int64
    /// The zone the time is printed in, in minutes east of UTC; 0 prints `Z`.
    public var utcOffsetMinutes: Int

    /// The widest real offset is +14:00; anything past ±23:59 cannot be printed as hh:mm.
    public static let utcOffsetMinutesRange = -(23 * 60 + 59)...(23 * 60 + 59)

    private static let millisecondsPerDay: Int64 = 86_400_000
    /// 0000-01-01T00:00:00.000 and 9999-12-31T23:59:59.999, in milliseconds since 1970.
    private static let firstPrintable: Int64 = -62_167_219_200_000
    private static let lastPrintable: Int64 = 253_402_300_799_999
    private static let structure = "EXT-X-PROGRAM-DATE-TIME"

    /// A time; the offset is clamped to ±23:59.
    public init(millisecondsSince1970: Int64, utcOffsetMinutes: Int = 0) {
        self.millisecondsSince1970 = millisecondsSince1970
        self.utcOffsetMinutes = min(max(utcOffsetMinutes, Self.utcOffsetMinutesRange.lowerBound),
                                    Self.utcOffsetMinutesRange.upperBound)
    }

    /// The time `milliseconds` later (saturating).
    public func adding(milliseconds: Int64) -> Self {
        Self(millisecondsSince1970: millisecondsSince1970.addingSaturating(milliseconds), utcOffsetMinutes: utcOffsetMinutes)
    }

    public var description: String {
        // Times outside years 0000...9999 print as the nearest printable one.
        let local = min(max(millisecondsSince1970.addingSaturating(Int64(utcOffsetMinutes) * 60_000),
                            Self.firstPrintable), Self.lastPrintable)
        let (days, msOfDay) = Self.floorDivide(local, Self.millisecondsPerDay)
        let (year, month, day) = Self.civil(fromDays: days)
        var text = Self.pad(year, 4) + "-" + Self.pad(month, 2) + "-" + Self.pad(day, 2) + "T"
        text += Self.pad(msOfDay / 3_600_000, 2) + ":" + Self.pad(msOfDay / 60_000 % 60, 2) + ":"
        text += Self.pad(msOfDay / 1000 % 60, 2) + "." + Self.pad(msOfDay % 1000, 3)
        guard utcOffsetMinutes != 0 else { return text + "Z" }
        let magnitude = Int64(abs(utcOffsetMinutes))
        return text + (utcOffsetMinutes < 0 ? "-" : "+") + Self.pad(magnitude / 60, 2) + ":" + Self.pad(magnitude % 60, 2)
    }

    /// Reads `YYYY-MM-DDThh:mm:ss[.fraction](Z|±hh:mm|±hhmm)`; digits past milliseconds are dropped.
    public init(parsing text: some StringProtocol) throws {
        let bytes = Array(text.utf8)
        var reader = Reader(bytes: bytes)
        let year = try reader.number(4, then: "-")
        let month = try reader.number(2, then: "-")
        let day = try reader.number(2, then: "T")
        let hour = try reader.number(2, then: ":")
        let minute = try reader.number(2, then: ":")
        let second = try reader.number(2, then: nil)
        var milliseconds: Int64 = 0
        if reader.next == UInt8(ascii: ".") {
            reader.index += 1
            var digits = 0
            while let byte = reader.next, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                if digits < 3 { milliseconds = milliseconds * 10 + Int64(byte - UInt8(ascii: "0")) }
                digits += 1
                reader.index += 1
            }
            guard digits > 0 else { throw MediaFormatError.invalid(structure: Self.structure, reason: "empty fraction") }
            for _ in digits..<max(digits, 3) { milliseconds *= 10 }
        }
        var offset = 0
        switch reader.next {
        case UInt8(ascii: "Z"):
            reader.index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = reader.next == UInt8(ascii: "-") ? -1 : 1
            reader.index += 1
            let hours = try reader.number(2, then: nil)
            if reader.next == UInt8(ascii: ":") { reader.index += 1 }
            let minutes = try reader.number(2, then: nil)
            guard hours <= 23, minutes <= 59 else {
                throw MediaFormatError.invalid(structure: Self.structure, reason: "zone offset out of range")
            }
            offset = sign * Int(hours * 60 + minutes)
        default:
            throw MediaFormatError.invalid(structure: Self.structure, reason: "no time zone")
        }
        guard reader.index == bytes.count else {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "text after the time zone")
        }
        guard (1...12).contains(month), (1...Self.daysIn(month: month, year: year)).contains(day), hour <= 23,
              minute <= 59, second <= 60 else {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "date or time field out of range")
        }
        // A leap second (ss = 60) folds into the next second, as Unix time does.
        let days = Self.days(fromCivil: year, month, day)
        let local = ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + milliseconds
        self.init(millisecondsSince1970: local - Int64(offset) * 60_000, utcOffsetMinutes: offset)
    }

    // MARK: Calendar (proleptic Gregorian, days counted from 1970-01-01)

    /// Days from 1970-01-01 to `year-month-day`, counting in 400-year eras of 146 097 days.
    static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = floorDivide(shiftedYear, 400).quotient
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `days` after 1970-01-01 (the inverse of `days(fromCivil:)`).
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = floorDivide(shifted, 146_097).quotient
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][Int(month - 1)]
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let quotient = value / divisor - (value % divisor < 0 ? 1 : 0)
        return (quotient, value - quotient * divisor)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// Fixed-width digit fields of the date-time text.
    private struct Reader {
        let bytes: [UInt8]
        var index = 0
        var next: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func number(_ width: Int, then separator: Character?) throws -> Int64 {
            var value: Int64 = 0
            for _ in 0..<width {
                guard let byte = next, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else {
                    throw MediaFormatError.invalid(structure: HLSProgramDateTime.structure, reason: "expected \(width) digits")
                }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
                index += 1
            }
            if let separator {
                guard let byte = next, Character(Unicode.Scalar(byte)) == separator else {
                    throw MediaFormatError.invalid(structure: HLSProgramDateTime.structure, reason: "expected '\(separator)'")
                }
                index += 1
            }
            return value
        }
    }
}
