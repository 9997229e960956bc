import Foundation
import SluiceTestSupport
import MediaJob
import Testing
@testable import LiveRelay
import MediaEngine
import NIOConcurrencyHelpers

/// RTSP cameras on the relay engine: GStreamer's RTSP server (scripts/lib/rtsp-camera.py, Digest authentication)
/// serving a file at 1x as a camera does; nginx-rtmp and FLV archives on the other side; ffmpeg's framemd5 as the referee.
@Suite("RTSP on the relay engine", .serialized, .enabled(if: Live.isAvailable, Live.unavailableReason))
struct RTSPRelayTests {
    static let reports = NIOLockedValueBox<[String]>([])
    static let engine = RelayEngine(RelaySettings(threads: 2), report: { line in RTSPRelayTests.reports.withLockedValue { $0.append(line) } })
    static let user = "admin"
    static let password = "se:cret"

    /// 320x240 30 fps H.264 without B-frames (as cameras send), a keyframe every second, AAC 48 kHz, in MPEG-TS.
    static func cameraFixture(seconds: Int) throws -> String {
        let path = Live.fixtures + "/camera-\(seconds)s.ts"
        if !FileManager.default.fileExists(atPath: path) {
            let own = Live.fixtures + "/making-\(getpid())-camera-\(seconds)s.ts"
            try Live.run("/usr/bin/ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30",
                                             "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:beep_factor=3", "-t", String(seconds),
                                             "-c:v", "libx264", "-preset", "veryfast", "-g", "30", "-bf", "0", "-pix_fmt", "yuv420p",
                                             "-c:a", "aac", "-aac_pns", "0", "-b:a", "96k", "-shortest", "-f", "mpegts", own])
            guard rename(own, path) == 0 else { throw LiveTestError("could not rename \(own) to \(path)") }
        }
        return path
    }

    /// The camera on a free loopback port, listening once this returns.
    /// A port free-port found can be taken before the camera binds it (its range overlaps the kernel's ephemeral ports,
    /// and the tests open thousands of connections; the ThreadSanitizer stage of a fresh-clone run of 450e8d9 met one): a camera that says it
    /// cannot listen is started again on another port, up to five times.
    static func camera(_ file: String, path: String = "/cam", extra: [String] = []) throws -> (Child, Int) {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../scripts/lib/rtsp-camera.py").standardizedFileURL.path
        for attempt in 1...5 {
            let port = try Live.freePort()
            let camera = try Child("/usr/bin/python3", [script, "--port", String(port), "--path", path, "--file", file,
                                                        "--user", user, "--password", password] + extra)
            let deadline = Deadline(seconds: 20)
            while !deadline.hasPassed && !camera.hasExited {
                if ListeningPort.isListening(port) { return (camera, port) }
                usleep(20_000)
            }
            if attempt < 5, camera.hasExited, camera.stderr.contains("cannot listen") { continue }
            camera.end()
            throw LiveTestError("the camera never listened (attempt \(attempt)): \(camera.stderr)")
        }
        throw LiveTestError("the camera never listened")
    }

    static func url(port: Int, password: String = "se%3Acret") -> String {
        "rtsp://\(user):\(password)@127.0.0.1:\(port)/cam"
    }

    /// A job pulling the camera on `port` to `outputs` and an FLV archive `root`/out/`archive`; named `label` in the log.
    static func options(port: Int, password: String = "se%3Acret", label: String = "cam", outputs: [String], archive: String = "archive.flv",
                        root: String, timeout: Double = 8, maxDuration: Double? = nil) -> MediaJobOptions {
        var options = Live.options(input: url(port: port, password: password), outputs: outputs, timeout: timeout, maxDuration: maxDuration)
        options.inputName = "rtsp://***@127.0.0.1:\(port)/\(label)"
        options.outputs.append(OutputDescription(target: .file(path: root + "/out/" + archive), kind: .flv, name: archive))
        options.fileRoots = FileRoots(input: root, output: root)
        return options
    }

    @Test("a camera behind Digest authentication reaches nginx-rtmp and an FLV archive frame for frame, over TCP")
    func cameraToRTMPAndArchive() throws {
        let source = try Self.cameraFixture(seconds: 8)
        let (camera, port) = try Self.camera(source)
        defer { camera.end() }
        let root = Live.scratch("rtsp-tcp")
        let output = try Live.stream("fromrtsp")
        let player = try Live.play(output, into: root + "/played.flv")
        #expect(RTMPServerStatistics.waitForPlayer(output), "the player never attached to nginx-rtmp")
        let options = Self.options(port: port, outputs: [output], root: root, maxDuration: 4)
        let job = RunningJob(Self.engine, options)
        let result = try #require(job.wait(seconds: 30), "the job did not end").get()
        #expect(result.reachedMaxDuration)
        #expect(result.progress.inputReconnects == 0)
        #expect(player.wait(seconds: 30) == 0, "player: \(player.stderr)")
        let published = try Live.frames(source, "v")
        let archived = try Live.frames(root + "/out/archive.flv", "v")
        // 4 s of a 30 fps camera from its first frame (the file's start: the camera's media is the client's own).
        #expect(archived.count >= 110 && archived.count <= 125, "archived \(archived.count) frames")
        #expect(archived == Array(published.prefix(archived.count)), "the archive is not the camera's frames from the first on")
        let audio = try Live.frames(root + "/out/archive.flv", "a")
        let publishedAudio = try Live.frames(source, "a")
        #expect(audio.count > 150 && publishedAudio.containsContiguous(Array(audio.dropFirst(1))), "archived audio (\(audio.count) frames) is not a run of the camera's (the first decodes against silence)")
        let played = try Live.frames(root + "/played.flv", "v")
        #expect(played.count >= 100 && published.containsContiguous(Array(played.dropLast(2))), "played \(played.count) frames, not a run of the camera's")
        let lines = Self.reports.withLockedValue { $0 }
        #expect(lines.contains { $0.contains("the camera plays H.264 (video) and AAC (audio) over TCP, timed by RTP-Info") }, "\(lines)")
        #expect(!lines.joined().contains("se:cret") && !lines.joined().contains("se%3Acret"), "a log line holds the password")
    }

    @Test("over UDP: RTP and RTCP on the engine's client ports, the archive frame for frame")
    func cameraOverUDP() throws {
        let source = try Self.cameraFixture(seconds: 8)
        let (camera, port) = try Self.camera(source)
        defer { camera.end() }
        let root = Live.scratch("rtsp-udp")
        var options = Self.options(port: port, label: "udp", outputs: [], root: root, maxDuration: 3)
        options.rtspOverUDP = true
        let result = try #require(RunningJob(Self.engine, options).wait(seconds: 30), "the job did not end").get()
        #expect(result.reachedMaxDuration)
        let published = try Live.frames(source, "v")
        let archived = try Live.frames(root + "/out/archive.flv", "v")
        let lines = Self.reports.withLockedValue { $0 }
        #expect(lines.contains { $0.contains("/udp: the camera plays H.264 (video) and AAC (audio) over UDP") }, "\(lines)")
        // UDP on loopback loses nothing unless the receiving loop falls behind the kernel's buffer (a loaded machine,
        // ThreadSanitizer): then the loss is named, and what was archived must still be the camera's frames in order.
        if lines.contains(where: { $0.contains("/udp: the camera's RTP is damaged (") }) {
            var next = published.startIndex
            let inOrder = archived.allSatisfy { frame in
                guard let found = published[next...].firstIndex(of: frame) else { return false }
                next = found + 1
                return true
            }
            #expect(archived.count >= 30 && inOrder, "archived \(archived.count) frames after a named loss, not the camera's in order")
        } else {
            // At least 2 s of the 3: under that load the video may also arrive behind the audio that ends the job.
            #expect(archived.count >= 60 && archived == Array(published.prefix(archived.count)), "archived \(archived.count) frames, not the camera's from the first on")
        }
    }

    @Test("a camera sending B-frames: the archive holds its frames exactly and decodes cleanly, its DTS never going back")
    func cameraWithBFrames() throws {
        let source = try Live.fixture(seconds: 8)  // H.264 with two B-frames, as an MP4
        let (camera, port) = try Self.camera(source)
        defer { camera.end() }
        let root = Live.scratch("rtsp-bframes")
        let options = Self.options(port: port, label: "bframes", outputs: [], root: root, maxDuration: 3)
        let result = try #require(RunningJob(Self.engine, options).wait(seconds: 30), "the job did not end").get()
        #expect(result.reachedMaxDuration)
        let archive = root + "/out/archive.flv"
        let published = try Live.frames(source, "v")
        let archived = try Live.frames(archive, "v")
        #expect(archived.count >= 80 && archived == Array(published.prefix(archived.count)), "archived \(archived.count) frames, not the camera's from the first on")
        let decode = try Child("/usr/bin/ffmpeg", ["-hide_banner", "-nostdin", "-v", "error", "-i", archive, "-enc_time_base:v", "-1", "-f", "null", "-"])
        #expect(decode.wait(seconds: 30) == 0 && decode.stderr.isEmpty, "the archive does not decode cleanly: \(decode.stderr)")
        let times = try Live.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=pts_time,dts_time", "-of", "csv=p=0", archive])
            .split(separator: "\n").map { $0.split(separator: ",").compactMap { Double($0) } }.filter { $0.count == 2 }
        let dts = times.map { $0[1] }
        #expect(zip(dts, dts.dropFirst()).allSatisfy { $0 < $1 }, "the DTS went back or repeated")
        // Until the first step back is seen the DTS cannot know it: only the first group's B-frames are presented early.
        #expect(times.dropFirst(30).allSatisfy { $0[0] >= $0[1] }, "a frame after the first group is presented before it is decoded")
    }

    /// (seconds, mean volume in dB) of the first audio stream of `path`, decoded.
    static func audioSpan(_ path: String) throws -> (seconds: Double, meanVolume: Double) {
        let probe = try Live.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "packet=pts_time,duration_time", "-of", "csv=p=0", path])
        let times = probe.split(separator: "\n").compactMap { line -> Double? in
            let fields = line.split(separator: ",").compactMap { Double($0) }
            return fields.count == 2 ? fields[0] + fields[1] : nil
        }
        let volume = try Child("/usr/bin/ffmpeg", ["-hide_banner", "-nostdin", "-i", path, "-map", "0:a:0", "-af", "volumedetect", "-f", "null", "-"])
        guard volume.wait(seconds: 30) == 0 else { throw LiveTestError("volumedetect failed: \(volume.stderr)") }
        let mean = volume.stderr.firstMatch(of: /mean_volume: (-?[0-9.]+) dB/).flatMap { Double($0.1) } ?? -200
        return (times.max() ?? 0, mean)
    }

    @Test("a camera's G.711 becomes AAC on the job's loop: A-law over TCP, µ-law over UDP, as long as the video and not silent",
          arguments: [("pcma", false), ("pcmu", true)])
    func g711BecomesAAC(law: String, overUDP: Bool) throws {
        let source = try Self.cameraFixture(seconds: 8)
        let (camera, port) = try Self.camera(source, extra: ["--audio", law])
        defer { camera.end() }
        let root = Live.scratch("rtsp-\(law)")
        var options = Self.options(port: port, label: law, outputs: [], root: root, maxDuration: 4)
        options.rtspOverUDP = overUDP
        options.edgeAudioEncoder = EdgeAACEncoderMaker()
        let result = try #require(RunningJob(Self.engine, options).wait(seconds: 30), "the job did not end").get()
        #expect(result.reachedMaxDuration)
        let archive = root + "/out/archive.flv"
        let decode = try Child("/usr/bin/ffmpeg", ["-hide_banner", "-nostdin", "-v", "error", "-i", archive, "-enc_time_base:v", "-1", "-f", "null", "-"])
        #expect(decode.wait(seconds: 30) == 0 && decode.stderr.isEmpty, "the archive does not decode cleanly: \(decode.stderr)")
        let streams = try Live.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "stream=codec_name,sample_rate,channels", "-of", "csv=p=0", archive])
        #expect(streams.trimmingCharacters(in: .whitespacesAndNewlines) == "aac,48000,1", "archived audio: \(streams)")
        // The video is still the camera's own, frame for frame.
        let published = try Live.frames(source, "v")
        let archived = try Live.frames(archive, "v")
        #expect(archived.count >= 110 && archived == Array(published.prefix(archived.count)), "archived \(archived.count) frames, not the camera's from the first on")
        // Audio covers the video's span (a 1,024-sample frame and the encoder's delay aside) and is the camera's tone, not silence.
        let video = Double(archived.count) / 30
        let audio = try Self.audioSpan(archive)
        #expect(abs(audio.seconds - video) < 0.25, "audio ends at \(audio.seconds) s, the video's \(archived.count) frames at \(video) s")
        #expect(audio.meanVolume > -30, "the archived audio's mean volume is \(audio.meanVolume) dB")
        let name = law == "pcma" ? "G.711 A-law" : "G.711 µ-law"
        let lines = Self.reports.withLockedValue { $0 }
        #expect(lines.contains { $0.contains("/\(law): the camera plays H.264 (video) and \(name) (audio) over \(overUDP ? "UDP" : "TCP")") }, "\(lines)")
    }

    @Test("a camera's AAC in MP4A-LATM: its frames archived exactly, with the configuration its SDP carried")
    func latmAudioIsCopied() throws {
        let source = try Self.cameraFixture(seconds: 8)
        let (camera, port) = try Self.camera(source, extra: ["--audio", "latm"])
        defer { camera.end() }
        let root = Live.scratch("rtsp-latm")
        let options = Self.options(port: port, label: "latm", outputs: [], root: root, maxDuration: 4)
        let result = try #require(RunningJob(Self.engine, options).wait(seconds: 30), "the job did not end").get()
        #expect(result.reachedMaxDuration)
        let archive = root + "/out/archive.flv"
        let audio = try Live.frames(archive, "a")
        let publishedAudio = try Live.frames(source, "a")
        #expect(audio.count > 150 && publishedAudio.containsContiguous(Array(audio.dropFirst(1))), "archived audio (\(audio.count) frames) is not a run of the camera's (the first decodes against silence)")
        let lines = Self.reports.withLockedValue { $0 }
        #expect(lines.contains { $0.contains("/latm: the camera plays H.264 (video) and AAC (MP4A-LATM) (audio) over TCP") }, "\(lines)")
    }

    @Test("without an AAC encoder in the job, a G.711 track is named as not carried and the video still flows")
    func g711WithoutEncoderIsNamed() throws {
        let source = try Self.cameraFixture(seconds: 8)
        let (camera, port) = try Self.camera(source, extra: ["--audio", "pcma"])
        defer { camera.end() }
        let root = Live.scratch("rtsp-noenc")
        let options = Self.options(port: port, label: "noenc", outputs: [], root: root, maxDuration: 2)
        let result = try #require(RunningJob(Self.engine, options).wait(seconds: 30), "the job did not end").get()
        #expect(result.reachedMaxDuration)
        let streams = try Live.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=codec_type", "-of", "csv=p=0", root + "/out/archive.flv"])
        #expect(streams.split(separator: "\n") == ["video"], "archived streams: \(streams)")
        let lines = Self.reports.withLockedValue { $0 }
        #expect(lines.contains { $0.contains("/noenc: the camera plays H.264 (video) over TCP") && $0.contains("not carried: track 1 (audio): G.711 A-law, with no AAC encoder in this job") }, "\(lines)")
    }

    @Test("an rtsps:// camera: played over TLS verified against the worker's CA file, and refused naming the certificate without it")
    func rtspsCameraIsVerified() throws {
        let source = try Self.cameraFixture(seconds: 8)
        let root = Live.scratch("rtsps")
        let certificate = try TestCertificate.make(in: root, name: "camera")
        let (camera, port) = try Self.camera(source, extra: ["--tls", certificate.certificate, certificate.key])
        defer { camera.end() }
        let trusting = RelayEngine(RelaySettings(threads: 1, rtmpsCAFile: certificate.ca), report: { _ in })
        var options = Self.options(port: port, label: "tls", outputs: [], root: root, maxDuration: 3)
        options.inputURL = "rtsps://\(Self.user):se%3Acret@127.0.0.1:\(port)/cam"
        let result = try #require(RunningJob(trusting, options).wait(seconds: 30), "the job did not end").get()
        #expect(result.reachedMaxDuration)
        let published = try Live.frames(source, "v")
        let archived = try Live.frames(root + "/out/archive.flv", "v")
        #expect(archived.count >= 80 && archived == Array(published.prefix(archived.count)), "archived \(archived.count) frames, not the camera's from the first on")
        // The shared engine trusts only the system's store: the camera's private CA is refused, and the job says so.
        var refused = Self.options(port: port, label: "untrusted", outputs: [], archive: "never.flv", root: root, timeout: 2)
        refused.inputURL = options.inputURL
        let failure = try #require(RunningJob(Self.engine, refused).wait(seconds: 20), "the job did not end")
        guard case let .failure(error) = failure else {
            Issue.record("a camera whose certificate is not trusted was played")
            return
        }
        #expect("\(error)".contains("TLS handshake failed") && "\(error)".contains("CERTIFICATE_VERIFY_FAILED"), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: root + "/out/never.flv"), "a failed job left an archive")
    }

    @Test("2 % of the camera's RTP lost over UDP: no damaged frame reaches the archive, the video resumes at the next keyframe")
    func lossyCameraOverUDP() throws {
        let source = try Self.cameraFixture(seconds: 8)
        let (camera, port) = try Self.camera(source, extra: ["--loss", "2"])
        defer { camera.end() }
        let root = Live.scratch("rtsp-loss")
        var options = Self.options(port: port, label: "lossy", outputs: [], root: root, maxDuration: 5)
        options.rtspOverUDP = true
        let result = try #require(RunningJob(Self.engine, options).wait(seconds: 30), "the job did not end").get()
        #expect(result.reachedMaxDuration)
        camera.end()
        let dropped = camera.stderr.firstMatch(of: /dropped (\d+) of (\d+) RTP packets/).flatMap { Int($0.1) } ?? 0
        #expect(dropped >= 3, "the camera dropped \(dropped) packets: \(camera.stderr)")
        let archive = root + "/out/archive.flv"
        let published = try Live.frames(source, "v")
        let archived = try Live.frames(archive, "v")
        // Every archived frame is one of the camera's, in the camera's order: a damaged or out-of-place one is not.
        var next = published.startIndex
        let inOrder = archived.allSatisfy { frame in
            guard let found = published[next...].firstIndex(of: frame) else { return false }
            next = found + 1
            return true
        }
        #expect(inOrder, "an archived frame is not one of the camera's, or not in its order")
        #expect(archived.count >= 30 && archived.count < 150, "archived \(archived.count) frames of about 150")
        let decode = try Child("/usr/bin/ffmpeg", ["-hide_banner", "-nostdin", "-v", "error", "-i", archive, "-enc_time_base:v", "-1", "-f", "null", "-"])
        #expect(decode.wait(seconds: 30) == 0 && decode.stderr.isEmpty, "the archive does not decode cleanly: \(decode.stderr)")
        let lines = Self.reports.withLockedValue { $0 }
        #expect(lines.contains { $0.contains("/lossy: the camera's RTP is damaged (") && $0.contains("lost packets") }, "\(lines)")
    }

    @Test("wrong credentials fail the job naming the camera's refusal, and the password is in no message")
    func wrongCredentialsAreNamed() throws {
        let (camera, port) = try Self.camera(try Self.cameraFixture(seconds: 8))
        defer { camera.end() }
        let root = Live.scratch("rtsp-refused")
        let options = Self.options(port: port, password: "wrong", outputs: [], archive: "never.flv", root: root, timeout: 2)
        let result = try #require(RunningJob(Self.engine, options).wait(seconds: 20), "the job did not end")
        guard case let .failure(error) = result else {
            Issue.record("a camera refusing the credentials did not fail the job")
            return
        }
        #expect("\(error)".contains("DESCRIBE answered 401 Unauthorized after Digest credentials were sent"), "\(error)")
        #expect(!"\(error)".contains("wrong"))
        #expect(!FileManager.default.fileExists(atPath: root + "/out/never.flv"), "a failed job left an archive")
    }

    @Test("a camera that drops its connections is pulled again, and the destination plays through")
    func droppedCameraIsPulledAgain() throws {
        let source = try Self.cameraFixture(seconds: 8)
        let (camera, port) = try Self.camera(source, extra: ["--loop"])
        defer { camera.end() }
        let root = Live.scratch("rtsp-drop")
        let output = try Live.stream("rtspdrop")
        let player = try Live.play(output, into: root + "/played.flv", idle: 6)
        #expect(RTMPServerStatistics.waitForPlayer(output), "the player never attached to nginx-rtmp")
        let options = Self.options(port: port, outputs: [output], root: root, maxDuration: 6)
        let job = RunningJob(Self.engine, options)
        // Once the job has relayed a couple of seconds, every connection of the camera is closed at once.
        #expect(Live.wait(seconds: 15) { (job.latestProgress?.mediaTime ?? 0) >= 2 }, "the job relayed nothing for 15 s")
        kill(camera.process.processIdentifier, SIGUSR1)
        let result = try #require(job.wait(seconds: 40), "the job did not end").get()
        #expect(result.reachedMaxDuration, "the job ended before its 6 s")
        #expect(result.progress.inputReconnects >= 1, "the camera's drop was not noticed")
        #expect(player.wait(seconds: 20) == 0, "player: \(player.stderr)")
        let archive = root + "/out/archive.flv"
        let decode = try Child("/usr/bin/ffmpeg", ["-hide_banner", "-nostdin", "-v", "error", "-i", archive, "-enc_time_base:v", "-1", "-f", "null", "-"])
        #expect(decode.wait(seconds: 30) == 0 && decode.stderr.isEmpty, "the archive does not decode cleanly: \(decode.stderr)")
        let archived = try Live.frames(archive, "v")
        #expect(archived.count >= 150, "archived \(archived.count) frames over two connections")
        let played = try Live.frames(root + "/played.flv", "v")
        #expect(played.count >= 150, "the player got \(played.count) frames: it did not play through the drop")
    }
    @Test("a camera gone for 4 s: the slate keeps the destination playing, and the camera is pulled again when it is back")
    func slateAcrossACameraOutage() throws {
        let source = try Self.cameraFixture(seconds: 8)
        var (camera, port) = try Self.camera(source, extra: ["--loop"])
        defer { camera.end() }
        let root = Live.scratch("rtsp-slate")
        let output = try Live.stream("rtspslate")
        let player = try Live.play(output, into: root + "/played.flv", idle: 8)
        #expect(RTMPServerStatistics.waitForPlayer(output), "the player never attached to nginx-rtmp")
        var options = Self.options(port: port, label: "slate", outputs: [output], root: root, timeout: 30, maxDuration: 14)
        // Retried at least each second, so the camera's return is found well before the job's end.
        options.reconnect = ReconnectPolicy(attempts: 100, initialDelay: 0.5, maxDelay: 1)
        options.fallback = FallbackOptions(afterSeconds: 0.5, maxSeconds: 60, maker: try SlateMaker(slate: nil, root: nil))
        let job = RunningJob(Self.engine, options)
        #expect(Live.wait(seconds: 15) { (job.latestProgress?.mediaTime ?? 0) >= 2 }, "the job relayed nothing for 15 s")
        // The camera goes away entirely (nothing listens on its port), and comes back on the same port 4 s later.
        camera.end()
        #expect(Live.wait(seconds: 10) { job.latestProgress?.slate?.onSlate == true }, "the outputs never went on the slate")
        Thread.sleep(forTimeInterval: 3)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../scripts/lib/rtsp-camera.py").standardizedFileURL.path
        camera = try Child("/usr/bin/python3", [script, "--port", String(port), "--path", "/cam", "--file", source, "--loop",
                                                "--user", Self.user, "--password", Self.password])
        #expect(ListeningPort.wait(port, seconds: 20), "the camera did not come back: \(camera.stderr)")
        let result = try #require(job.wait(seconds: 60), "the job did not end").get()
        #expect(result.reachedMaxDuration, "the job ended before its 14 s")
        #expect(result.progress.inputReconnects >= 1, "the camera's return was not a reconnect")
        let slate = try #require(result.progress.slate, "no slate progress")
        #expect(slate.switches >= 1 && slate.seconds >= 2, "on the slate \(slate.switches) times for \(slate.seconds) s")
        #expect(!slate.onSlate, "the job ended on the slate: the camera was never pulled again")
        #expect(player.wait(seconds: 30) == 0, "player: \(player.stderr)")
        // The player saw one stream throughout: the camera's frames, the slate's and the camera's again, ~14 s of them.
        let played = try Live.frames(root + "/played.flv", "v")
        let published = Set(try Live.frames(source, "v"))
        let slateFrames = played.filter { !published.contains($0) }.count
        #expect(played.count >= 330, "the player got \(played.count) frames of about 420")
        #expect(slateFrames >= 30 && played.count - slateFrames >= 150, "\(slateFrames) slate frames and \(played.count - slateFrames) of the camera's")
        // A frame with side data ends its line with an empty field ("320,240,").
        let sizes = Set(try Live.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=width,height", "-of", "csv=p=0", root + "/played.flv"])
            .split(separator: "\n").map { $0.split(separator: ",").prefix(2).joined(separator: ",") })
        #expect(sizes == ["320,240"], "the player decoded pictures of \(sizes.sorted()): the slate is not at the camera's size")
    }
}
