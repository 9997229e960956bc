import Foundation

/// Test media generated with the ffmpeg CLI from lavfi sources, once per test run: the test processes that run side
/// by side share the fixtures (each made under a name of its own, then renamed into place), while scratch folders are
/// private to a process. Every fixture is a few seconds at a small size, so the whole set builds in seconds.
enum Fixtures {
    static let directory: String = {
        let base = ProcessInfo.processInfo.environment["SLUICE_TEST_WORK"] ?? NSTemporaryDirectory()
        let path = (base as NSString).appendingPathComponent("fixtures-\(getpid())")
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    /// Where fixtures live, shared by the run's test processes.
    static let shared: String = {
        let base = ProcessInfo.processInfo.environment["SLUICE_TEST_WORK"] ?? NSTemporaryDirectory()
        let path = (base as NSString).appendingPathComponent("fixtures-shared")
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    private static let lock = NSLock()
    nonisolated(unsafe) private static var made: [String: String] = [:]

    /// A fresh scratch folder for one test.
    static func scratch(_ name: String) -> String {
        let path = (directory as NSString).appendingPathComponent("scratch-\(name)-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func video(size: String = "320x240", rate: Int = 30, extra: String = "") -> [String] {
        ["-f", "lavfi", "-i", "testsrc2=size=\(size):rate=\(rate)\(extra)"]
    }

    static func audio(rate: Int = 48000, layout: String = "stereo") -> [String] {
        ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=\(rate):beep_factor=3", "-af", "aformat=channel_layouts=\(layout)"]
    }

    static let x264 = ["-c:v", "libx264", "-preset", "veryfast", "-g", "30", "-pix_fmt", "yuv420p"]

    /// The path of fixture `name`, generating it on first use with `arguments` (output path appended).
    static func make(_ name: String, _ arguments: [String]) throws -> String {
        lock.lock()
        defer { lock.unlock() }
        if let path = made[name] { return path }
        let path = (shared as NSString).appendingPathComponent(name)
        if !FileManager.default.fileExists(atPath: path) {
            // Another process may be making the same fixture: each writes its own file, and the rename is atomic.
            let own = (shared as NSString).appendingPathComponent("making-\(getpid())-\(name)")
            try Command.ffmpeg(arguments + [own])
            guard rename(own, path) == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
        }
        made[name] = path
        return path
    }

    // MARK: The catalogue

    static func mp4BFrames() throws -> String {
        try make("bframes.mp4", video() + audio() + ["-t", "3"] + x264 + ["-profile:v", "high", "-bf", "3", "-c:a", "aac", "-b:a", "96k", "-shortest"])
    }
    static func slices() throws -> String {
        try make("slices.mp4", video(size: "640x360") + audio() + ["-t", "2"] + x264 + ["-x264-params", "slices=4", "-bf", "2", "-c:a", "aac", "-shortest"])
    }
    static func mono44k() throws -> String {
        try make("mono44k.mp4", video() + audio(rate: 44100, layout: "mono") + ["-t", "2"] + x264 + ["-c:a", "aac", "-shortest"])
    }
    static func surround() throws -> String {
        try make("surround.mkv", video() + audio(layout: "5.1") + ["-t", "2"] + x264 + ["-c:a", "aac", "-shortest"])
    }
    static func mpegtsAUD() throws -> String {
        try make("aud.ts", video() + audio() + ["-t", "3"] + x264 + ["-x264-params", "aud=1", "-bf", "2", "-c:a", "aac", "-shortest", "-f", "mpegts"])
    }
    static func flvInput() throws -> String {
        try make("input.flv", video() + audio(rate: 44100) + ["-t", "2"] + x264 + ["-bf", "2", "-c:a", "aac", "-shortest"])
    }
    static func rawH264() throws -> String {
        try make("raw.h264", video(rate: 25) + ["-t", "3"] + x264 + ["-bf", "3", "-b_strategy", "0", "-f", "h264"])
    }
    static func oddSize() throws -> String {
        try make("odd.mp4", video(size: "326x198") + audio() + ["-t", "2"] + x264 + ["-c:a", "aac", "-shortest"])
    }
    static func high10() throws -> String {
        try make("high10.mp4", video() + ["-t", "2", "-c:v", "libx264", "-preset", "veryfast", "-profile:v", "high10", "-pix_fmt", "yuv420p10le"])
    }
    static func adtsInput() throws -> String {
        try make("input.aac", audio(rate: 44100) + ["-t", "3", "-c:a", "aac"])
    }
    /// Two MPEG-TS segments of different sizes, back to back: SPS/PPS change mid-stream.
    static func resolutionChange() throws -> String {
        lock.lock()
        if let path = made["reschange.ts"] { lock.unlock(); return path }
        lock.unlock()
        let first = try make("res-a.ts", video(size: "320x240") + ["-t", "2"] + x264 + ["-bsf:v", "h264_mp4toannexb", "-f", "mpegts"])
        let second = try make("res-b.ts", video(size: "480x270") + ["-t", "2"] + x264 + ["-f", "mpegts", "-output_ts_offset", "2"])
        let path = (directory as NSString).appendingPathComponent("reschange.ts")
        var joined = try Data(contentsOf: URL(fileURLWithPath: first))
        joined.append(try Data(contentsOf: URL(fileURLWithPath: second)))
        try joined.write(to: URL(fileURLWithPath: path))
        lock.lock()
        made["reschange.ts"] = path
        lock.unlock()
        return path
    }
}
