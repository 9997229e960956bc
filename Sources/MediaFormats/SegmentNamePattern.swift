/// A segmented recording's path pattern: strftime fields for the segment's start in UTC (`rec/cam42-%Y%m%dT%H%M%S.mp4`).
/// Only `%Y %m %d %H %M %S %j %s %%` are fields; any other `%` is refused, so a name never depends on a locale or a
/// time zone. A pattern without a time field gets `-NNNNN` (the segment's number on the epoch grid, at least five
/// digits) before its extension, so every segment still has a name of its own.
public struct SegmentNamePattern: Sendable, Equatable {
    /// Why a pattern is refused.
    public enum Problem: Error, Equatable, CustomStringConvertible {
        /// `%` followed by a letter that is not one of `fields`.
        case unknownField(String)
        /// `%` at the very end.
        case danglingPercent

        public var description: String {
            switch self {
            case let .unknownField(field):
                return "uses %\(field), which is not a segment name field (allowed: %Y %m %d %H %M %S %j %s %%)"
            case .danglingPercent: return "ends in a lone %"
            }
        }
    }

    /// The fields a pattern may use (`%` doubled is a literal percent sign).
    public static let fields: Set<Character> = ["Y", "m", "d", "H", "M", "S", "j", "s", "%"]
    /// Digits of the `-NNNNN` number a pattern without time fields gets.
    static let numberDigits = 5

    public let text: String
    /// True when some field names the time (not just `%%`).
    public let hasTimeField: Bool

    /// Checks a pattern; throws the first field it refuses.
    public init(_ text: String) throws(Problem) {
        var hasTimeField = false
        var iterator = text.makeIterator()
        while let character = iterator.next() {
            guard character == "%" else { continue }
            guard let field = iterator.next() else { throw .danglingPercent }
            guard SegmentNamePattern.fields.contains(field) else { throw .unknownField(String(field)) }
            if field != "%" { hasTimeField = true }
        }
        self.text = text
        self.hasTimeField = hasTimeField
    }

    /// The path of a segment.
    /// - Parameters:
    ///   - start: the segment's start, Unix seconds (UTC); the name's fields are its calendar fields.
    ///   - number: the segment's number on the epoch grid (`start / segment_s`), for a pattern without time fields.
    ///   - collision: 0, or the n-th other name tried because the first was taken (`-n` before the extension).
    public func path(start: Int64, number: Int64, collision: Int = 0) -> String {
        var path = ""
        if hasTimeField {
            let time = UTCTime(unixSeconds: start)
            var iterator = text.makeIterator()
            while let character = iterator.next() {
                guard character == "%", let field = iterator.next() else {
                    path.append(character)
                    continue
                }
                switch field {
                case "Y": path += UTCTime.padded(time.year, 4)
                case "m": path += UTCTime.padded(time.month, 2)
                case "d": path += UTCTime.padded(time.day, 2)
                case "H": path += UTCTime.padded(time.hour, 2)
                case "M": path += UTCTime.padded(time.minute, 2)
                case "S": path += UTCTime.padded(time.second, 2)
                case "j": path += UTCTime.padded(time.dayOfYear, 3)
                case "s": path += String(start)
                default: path.append("%")
                }
            }
        } else {
            path = SegmentNamePattern.inserting("-" + UTCTime.padded(number, SegmentNamePattern.numberDigits),
                                                beforeExtensionOf: text.replacingPercents())
        }
        return collision > 0 ? SegmentNamePattern.inserting("-\(collision)", beforeExtensionOf: path) : path
    }

    /// Whether `path` is a name this pattern gives, for any start and any collision suffix: each time field as its
    /// digits (`%Y` four, `%j` three, `%s` one or more, the others two), or `-NNNNN` (five digits or more) before the
    /// extension of a pattern without one. `retain` counts the segments on disk by it, whoever wrote them.
    public func names(_ path: String) -> Bool {
        let tokens = Self.tokens(of: self)
        let characters = Array(path)
        if Self.match(tokens[...], characters[...]) { return true }
        // `-n` before the extension: a name that was taken.
        let name = PathText.lastComponent(path)
        let stem = name.lastIndex(of: ".").flatMap { $0 == name.startIndex ? nil : $0 }.map { String(name[..<$0]) } ?? name
        guard let dash = stem.lastIndex(of: "-"), stem.index(after: dash) < stem.endIndex,
              stem[stem.index(after: dash)...].allSatisfy(\.isASCIIDigit) else { return false }
        let suffixLength = stem.distance(from: dash, to: stem.endIndex)
        let extensionLength = name.count - stem.count
        var unsuffixed = characters
        unsuffixed.removeSubrange((characters.count - extensionLength - suffixLength)..<(characters.count - extensionLength))
        return Self.match(tokens[...], unsuffixed[...])
    }

    /// A piece of a name: a character as is, or a run of digits.
    private enum Token: Equatable {
        case literal(Character)
        case digits(minimum: Int, maximum: Int)
    }

    private static func tokens(of pattern: SegmentNamePattern) -> [Token] {
        guard pattern.hasTimeField else {
            let marker = "\u{0}"
            return Array(inserting(marker, beforeExtensionOf: pattern.text.replacingPercents())).flatMap { character -> [Token] in
                character == "\u{0}" ? [.literal("-"), .digits(minimum: numberDigits, maximum: 19)] : [.literal(character)]
            }
        }
        var tokens: [Token] = []
        var iterator = pattern.text.makeIterator()
        while let character = iterator.next() {
            guard character == "%", let field = iterator.next() else {
                tokens.append(.literal(character))
                continue
            }
            switch field {
            case "Y": tokens.append(.digits(minimum: 4, maximum: 4))
            case "j": tokens.append(.digits(minimum: 3, maximum: 3))
            case "s": tokens.append(.digits(minimum: 1, maximum: 19))
            case "%": tokens.append(.literal("%"))
            default: tokens.append(.digits(minimum: 2, maximum: 2))
            }
        }
        return tokens
    }

    /// Whether `characters` are `tokens`, trying each length a run of digits may take.
    private static func match(_ tokens: ArraySlice<Token>, _ characters: ArraySlice<Character>) -> Bool {
        guard let token = tokens.first else { return characters.isEmpty }
        switch token {
        case let .literal(expected):
            guard characters.first == expected else { return false }
            return match(tokens.dropFirst(), characters.dropFirst())
        case let .digits(minimum, maximum):
            let run = characters.prefix { $0.isASCIIDigit }.count
            guard run >= minimum else { return false }
            for length in stride(from: min(run, maximum), through: minimum, by: -1)
            where match(tokens.dropFirst(), characters.dropFirst(length)) {
                return true
            }
            return false
        }
    }

    /// `text` inserted before the last component's extension (at the end when it has none).
    static func inserting(_ text: String, beforeExtensionOf path: String) -> String {
        let name = PathText.lastComponent(path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return path + text }
        let extensionLength = name.distance(from: dot, to: name.endIndex)
        let cut = path.index(path.endIndex, offsetBy: -extensionLength)
        return String(path[..<cut]) + text + String(path[cut...])
    }
}

private extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

private extension String {
    /// `%%` as `%` (the only field a pattern without time fields can hold).
    func replacingPercents() -> String {
        var result = ""
        var previousWasPercent = false
        for character in self {
            if character == "%", previousWasPercent {
                previousWasPercent = false
                continue
            }
            previousWasPercent = character == "%"
            result.append(character)
        }
        return result
    }
}

/// A Unix time's UTC calendar fields (proleptic Gregorian), without Foundation's calendars or the process's zone.
struct UTCTime: Equatable {
    var year: Int64, month: Int64, day: Int64, hour: Int64, minute: Int64, second: Int64, dayOfYear: Int64

    init(unixSeconds: Int64) {
        let (days, secondOfDay) = UTCTime.floorDivision(unixSeconds, 86_400)
        hour = secondOfDay / 3600
        minute = secondOfDay % 3600 / 60
        second = secondOfDay % 60
        // Days to civil date: Howard Hinnant's algorithm, eras of 400 years starting on 1 March.
        let shifted = days + 719_468
        let era = UTCTime.floorDivision(shifted, 146_097).quotient
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfMarchYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfMarchYear + 2) / 153
        day = dayOfMarchYear - (153 * monthIndex + 2) / 5 + 1
        month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        let daysBeforeMonth: [Int64] = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334]
        dayOfYear = daysBeforeMonth[Int(month - 1)] + day + (leap && month > 2 ? 1 : 0)
    }

    static func floorDivision(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let (quotient, remainder) = value.quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }

    static func padded(_ value: Int64, _ width: Int) -> String {
        let digits = String(value.magnitude)
        let sign = value < 0 ? "-" : ""
        return sign + String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
