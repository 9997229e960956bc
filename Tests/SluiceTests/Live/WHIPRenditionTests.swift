import Foundation
import SluiceTestSupport
import Testing

/// `sluice run` on a WHIP listen job whose output has its own rendition, as a user runs it: Chromium publishes its camera
/// as VP8 (what a page that prefers it sends), the codec stage decodes it and the archive is H.264 and AAC at the
/// picture's own size, which only the key frames say for VP8 and VP9 (their vpcC has none); beside it the codec stage
/// copies the VP8 into an `.mp4` (`vp08` + a vpcC from its key frame).
@Suite("WHIP publishers transcoded", .serialized,
       .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"), "needs /usr/bin/chromium (scripts/bootstrap)"))
struct WHIPRenditionTests {
    let folder = Fixtures.scratch("whip-rendition")
    static let peer = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../scripts/lib/chromium-peer.py").standardizedFileURL.path

    /// VP8 only in CI (its copy is checked in the `.mp4`: no reader here takes vp08 in FLV). VP9
    /// (whose copy `chromiumPublishesVP9Copied` checks) and AV1 go the same way (`--filter chromiumTranscoded` with them
    /// added here); each Chromium run is seconds of two software encoders, kept out of the stage's load.
    @Test("Chromium publishes VP8 by WHIP to a job whose output encodes: H.264 at its own 640x360 and AAC, decoding cleanly; an .mp4 beside it keeps the VP8",
          arguments: ["vp8"])
    func chromiumTranscoded(codec: String) throws {
        let port = try TestRTMP.freePort()
        let id = "whip-\(codec)-h264"
        let archive = folder + "/\(id).flv"
        let copy = folder + "/\(id)-copy.mp4"
        let path = folder + "/\(id).json"
        // No picture size given: the rendition keeps the publisher's.
        try """
            {"id": "\(id)", "input": {"url": "whip://127.0.0.1:\(port)/live/cam", "listen": true, "token": "t0ken", "timeout_s": 30},
             "max_duration_s": 5,
             "outputs": [{"url": "\(archive)", "video": {"mode": "encode", "encoder": "software"}, "audio": {"mode": "encode"}}, "\(copy)"]}
            """.write(toFile: path, atomically: true, encoding: .utf8)
        let sluice = try BackgroundProcess(Command.sluiceBinary, ["run", "--quiet", "--db", folder + "/jobs.sqlite", path])
        defer { sluice.end() }
        #expect(ListeningPort.wait(port), "sluice never listened on \(port): \(sluice.stderr)")
        // Chromium sends until the job has its 5 s and ends (its DELETE then finds no session: 404 or no answer).
        let published = try Command.run("/usr/bin/python3", [Self.peer, "publish", "http://127.0.0.1:\(port)/live/cam", "--token", "t0ken",
                                                            "--seconds", "8", "--codec", codec], check: false)
        let said = (try? JSONSerialization.jsonObject(with: published.stdout) as? [String: Any]) ?? [:]
        #expect(said["status"] as? Int == 201 && said["connected"] as? Bool == true, "\(published.text) \(published.stderr)")
        #expect((said["codecs"] as? [String])?.contains { $0.lowercased() == "video/\(codec)" } == true, "Chromium did not send \(codec): \(said)")
        #expect(sluice.wait(seconds: 60) == 0, "sluice: \(sluice.stderr)")
        let video = try Probe.streams(archive, "v")
        #expect(video.first?.codec == "h264" && video.first?.width == 640 && video.first?.height == 360, "\(video)")
        #expect(try Probe.streams(archive, "a").first?.codec == "aac")
        let archiveErrors = try Probe.decodeErrors(archive)
        #expect(archiveErrors.isEmpty, "\(archiveErrors)")
        // 5 s of Chromium's fake camera (20–30 fps, variable).
        let frames = try Probe.frameCount(archive, "v")
        #expect(frames >= 60, "\(frames) video frames")
        // The publisher's own frames beside the encode: the codec stage copies them, sized by the key frames.
        let copied = try Probe.streams(copy, "v")
        #expect(copied.first?.codec == codec && copied.first?.width == 640 && copied.first?.height == 360, "\(copied)")
        let copyErrors = try Probe.decodeErrors(copy)
        #expect(copyErrors.isEmpty, "\(copyErrors)")
        // The copy's own decode times go strictly forward (the frames are Chromium's, at its variable rate).
        let times = try Probe.decodeTimes(copy, "v")
        let back = zip(times, times.dropFirst()).filter { $1 <= $0 }
        #expect(times.count >= 60 && back.isEmpty, "\(times.count) packets, times not increasing at \(back.prefix(5))")
        let copiedFrames = try Probe.frameCount(copy, "v")
        #expect(copiedFrames >= 60, "\(copiedFrames) copied video frames")
    }
}
