import Foundation
import SluiceTestSupport
import Testing

/// FFmpeg 8 as an Enhanced RTMP peer, through PyAV (scripts/lib/enhanced-rtmp-peer.py; scripts/bootstrap installs
/// pip's `av`): it makes HEVC/AV1 media, publishes it, serves as a one-client RTMP destination and decodes files.
enum EnhancedPeer {
    /// The `python3` on PATH: the one scripts/bootstrap installed PyAV for (`python3 -m pip`).
    static let python = ["/usr/bin/env", "python3"]
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../scripts/lib/enhanced-rtmp-peer.py").standardizedFileURL.path

    /// Whether PyAV imports. Under CI the suite runs regardless, so a missing PyAV fails it instead of skipping it.
    static let hasPyAV: Bool = {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python[0])
        process.arguments = Array(python.dropFirst()) + ["-c", "import av"]
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        do { try process.run() } catch { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()
    static var isAvailable: Bool { hasPyAV || Live.environment["CI"] == "true" }
    static let unavailableReason: Comment = "PyAV (pip's av) is missing: scripts/bootstrap installs it"

    private static let fixtureLock = NSLock()

    /// `seconds` (4) of testsrc2 320x240 30 fps (a keyframe a second) and a sine: "hevc"+"aac" or "av1"+"opus", in MP4.
    static func fixture(video: String, audio: String, seconds: Int = 4) throws -> String {
        try fixtureLock.withLock {
            let name = "enhanced-\(video)-\(audio)" + (seconds == 4 ? "" : "-\(seconds)s") + ".mp4"
            let path = (Live.directory as NSString).appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: path) { return path }
            try Live.run(python[0], Array(python.dropFirst()) + [script, "make", path, "--video", video, "--audio", audio, "--seconds", "\(seconds)"])
            return path
        }
    }

    /// What FFmpeg decoded: per kind the decoder, the frames and an MD5 of each; every error it logged or raised.
    struct Decoded: Decodable {
        struct Kind: Decodable {
            var codec: String
            var frames: Int
            var hashes: [String]
            var streams: Int
        }
        /// One decoded stream (every stream, in the file's order).
        struct Track: Decodable, Equatable {
            var kind: String
            var codec: String
            var frames: Int
            var hashes: [String]
        }
        var video: Kind?
        var audio: Kind?
        var tracks: [Track]
        var errors: [String]
        /// How a listen-mode read ended (FFmpeg reports the publisher's disconnect as an I/O error).
        var end: String?
    }

    static func decode(_ path: String) throws -> Decoded {
        let json = path + ".decoded.json"
        try Live.run(python[0], Array(python.dropFirst()) + [script, "decode", path, "--json", json])
        return try read(json)
    }

    static func read(_ json: String) throws -> Decoded {
        try JSONDecoder().decode(Decoded.self, from: Data(contentsOf: URL(fileURLWithPath: json)))
    }

    /// Publishes `file` to `url` at 1x.
    static func publish(_ file: String, to url: String) throws -> BackgroundProcess {
        try BackgroundProcess(python[0], Array(python.dropFirst()) + [script, "publish", file, url])
    }

    /// Remuxes `file` into an FLV file as FFmpeg 8 writes it (enhanced tags for HEVC, AV1, Opus).
    static func remux(_ file: String, to flv: String) throws {
        try Live.run(python[0], Array(python.dropFirst()) + [script, "publish", file, flv, "--unpaced"])
    }

    /// Every audio and video stream of `inputs` in one FLV file, as FFmpeg 8 writes it (multitrack past the first of a kind).
    static func mux(_ inputs: [String], to flv: String) throws {
        try Live.run(python[0], Array(python.dropFirst()) + [script, "mux", flv] + inputs)
    }

    /// A one-client RTMP server on `url` (FFmpeg's listen mode) decoding what it receives into `json`; returns once
    /// the port is bound.
    static func listen(_ url: String, json: String) throws -> BackgroundProcess {
        let server = try BackgroundProcess(python[0], Array(python.dropFirst()) + [script, "listen", url, "--json", json, "--timeout", "30"])
        guard Live.wait(seconds: 15, until: { server.stderr.contains("listening") }) else {
            throw LiveTestError("FFmpeg's listen server did not bind \(url): \(server.stderr)")
        }
        return server
    }
}
