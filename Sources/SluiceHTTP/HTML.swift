// The admin page is built as text: every value from the store passes through `HTML.escape` on the way in.
import Foundation

/// Escaping and formatting for the server-rendered admin pages.
enum HTML {
    /// Text safe inside an element or a double- or single-quoted attribute.
    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// A path segment for a job id in a link (ids are `[A-Za-z0-9._:-]`, but rejected ones may be anything).
    static func pathSegment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#"))) ?? ""
    }

    /// `1.5 kB`, `12.3 MB`: decimal units, as bitrates are.
    static func bytes(_ count: Int64) -> String {
        let units = ["B", "kB", "MB", "GB", "TB"]
        var value = Double(count)
        var unit = 0
        while abs(value) >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format: "%.1f %@", value, units[unit])
    }

    /// `850 ms`, `42.0 s`, `3 min 20 s`, `2 h 05 min`, `3 d 04 h`.
    static func duration(_ seconds: TimeInterval) -> String {
        let seconds = max(0, seconds)
        if seconds < 1 { return "\(Int((seconds * 1000).rounded())) ms" }
        if seconds < 60 { return String(format: "%.1f s", seconds) }
        let whole = Int(seconds.rounded())
        if whole < 3600 { return "\(whole / 60) min \(whole % 60) s" }
        if whole < 86400 { return String(format: "%d h %02d min", whole / 3600, whole % 3600 / 60) }
        return String(format: "%d d %02d h", whole / 86400, whole % 86400 / 3600)
    }

    /// ISO-8601 UTC to the second, as the CLI prints times.
    static func time(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    /// A number with at most `digits` decimals and no trailing zeros (`2500`, `29.97`).
    static func number(_ value: Double, digits: Int = 2) -> String {
        var text = String(format: "%.\(digits)f", value)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text
    }
}
