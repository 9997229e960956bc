import Foundation
import SluiceTestSupport
import Testing

/// The private nginx-rtmp `scripts/test` starts (scripts/lib/test-services.d/20-nginx-rtmp.sh), and
/// ffmpeg as the publisher and player around it.
enum TestRTMP {
    static let url = ProcessInfo.processInfo.environment["SLUICE_TEST_RTMP_URL"]
    static let control = ProcessInfo.processInfo.environment["SLUICE_TEST_RTMP_CTL"]

    /// Under CI the suites run regardless, so a missing server fails them instead of skipping them.
    static var isAvailable: Bool { (url != nil && control != nil) || ProcessInfo.processInfo.environment["CI"] == "true" }
    static let unavailableReason: Comment =
        "SLUICE_TEST_RTMP_URL and SLUICE_TEST_RTMP_CTL are unset: scripts/test sets them after starting nginx-rtmp"

    /// A stream URL of its own under the `live` application.
    static func stream(_ name: String) throws -> String {
        "\(try #require(url))/\(name)-\(UUID().uuidString.prefix(8))"
    }

    /// A loopback port nothing listens on (for a listener of our own, or a destination that refuses).
    static func freePort() throws -> Int {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../scripts/lib/free-port").standardizedFileURL.path
        let result = try Command.run(script, [])
        return try #require(Int(result.text.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    /// ffmpeg publishing a file at 1× with stream copy.
    static func publish(_ file: String, to url: String) throws -> BackgroundProcess {
        try BackgroundProcess("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-re", "-i", file, "-c", "copy", "-f", "flv", url])
    }

    /// The `idle` of a player attached before a job that pulls a live input: that job's first frame waits for the
    /// input's next keyframe too. Under ThreadSanitizer in CI such a job took more than 3 s to bring its first frame,
    /// and a player with the default gave up ("Input/output error", ffmpeg's word for a read that timed out). Such a
    /// test waits for its player 3 × 8 s past the job's end (below).
    static let pullingJob = 8.0

    /// ffmpeg playing `url` into an FLV file with stream copy. `idle` is its rw_timeout: how long it waits for the
    /// stream's first frame, and a third of how long it waits once data stops (nginx-rtmp keeps a player's connection
    /// when the publisher leaves; ffmpeg 5.1 then exits 3 rw_timeouts later, measured: 6.3 s for 2 s, 12.3 s for 4 s).
    static func play(_ url: String, into file: String, idle: Double = 3) throws -> BackgroundProcess {
        try BackgroundProcess("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-rw_timeout", String(Int(idle * 1_000_000)),
                                         "-i", url, "-c", "copy", "-f", "flv", "-y", file])
    }
}

