import Foundation

/// Whether a TCP port of this machine is listening, read from the kernel's table (/proc/net/tcp) rather than by
/// connecting, so the check never takes the connection a one-publisher listener would accept.
public enum ListeningPort {
    public static func isListening(_ port: Int) -> Bool {
        guard let table = try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8) else { return false }
        let local = String(format: ":%04X", port)
        return table.split(separator: "\n").dropFirst().contains { line in
            let fields = line.split(separator: " ")
            // State 0A: LISTEN.
            return fields.count > 3 && fields[1].hasSuffix(local) && fields[3] == "0A"
        }
    }

    /// Waits until `port` listens; false after `seconds`. What a test that publishes to a listen job waits for.
    public static func wait(_ port: Int, seconds: Double = 30) -> Bool {
        let deadline = Deadline(seconds: seconds)
        while !deadline.hasPassed {
            if isListening(port) { return true }
            usleep(20_000)
        }
        return false
    }
}
