import Foundation

/// The private nginx-rtmp's statistics page (`rtmp_stat` on the unix socket `SLUICE_TEST_RTMP_STAT`, started by
/// scripts/test): which streams have players. A test that compares what a player received with what was published
/// waits until the player is attached before anything is published, so it never judges when a player happened to
/// join (a player that connects a keyframe late plays the stream minus its first group of pictures).
public enum RTMPServerStatistics {
    public static let socket = ProcessInfo.processInfo.environment["SLUICE_TEST_RTMP_STAT"]

    /// The statistics XML of the shared server, or of the server whose statistics socket is `socket`; nil when the
    /// page cannot be read.
    public static func page(socket: String? = socket) -> String? {
        guard let socket else { return nil }
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments = ["-s", "--max-time", "2", "--unix-socket", socket, "http://localhost/stat"]
        let pipe = Pipe()
        curl.standardOutput = pipe
        curl.standardError = FileHandle.nullDevice
        curl.standardInput = FileHandle.nullDevice
        do { try curl.run() } catch { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        curl.waitUntilExit()
        return curl.terminationStatus == 0 ? String(decoding: data, as: UTF8.self) : nil
    }

    /// The statistics of the stream `key` now (its `<stream>` element after the name), or nil when it has none.
    static func stream(_ key: String, socket: String? = socket) -> Substring? {
        // One `<stream>` per stream, its `<name>` first (lines end in CRLF), then a `<client>` per client.
        guard let page = page(socket: socket), let start = page.range(of: "<name>\(key)</name>"),
              let end = page.range(of: "</stream>", range: start.upperBound..<page.endIndex) else { return nil }
        return page[start.upperBound..<end.lowerBound]
    }

    /// How many clients (players and publishers) the stream `key` has now.
    public static func clients(ofStream key: String, socket: String? = socket) -> Int {
        guard let stream = stream(key, socket: socket) else { return 0 }
        return stream.components(separatedBy: "<client>").count - 1
    }

    /// Waits until the stream at `url` (its last path component is the key) has a publisher that nginx counts as
    /// publishing; false after `seconds`. What a test that pulls the stream waits for, instead of a sleep.
    public static func waitForPublisher(_ url: String, seconds: Double = 15, socket: String? = socket) -> Bool {
        let key = String(url.split(separator: "/").last ?? "")
        let deadline = Deadline(seconds: seconds)
        while !deadline.hasPassed {
            if stream(key, socket: socket)?.contains("<publishing/>") == true { return true }
            usleep(50_000)
        }
        return false
    }

    /// Waits until the stream at `url` (its last path component is the key) has a client; false after `seconds`.
    public static func waitForPlayer(_ url: String, seconds: Double = 10, socket: String? = socket) -> Bool {
        let key = String(url.split(separator: "/").last ?? "")
        let deadline = Deadline(seconds: seconds)
        while !deadline.hasPassed {
            if clients(ofStream: key, socket: socket) > 0 { return true }
            usleep(50_000)
        }
        return false
    }
}
