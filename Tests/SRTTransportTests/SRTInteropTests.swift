import JobDocument
import Foundation
import SluiceTestSupport
import Testing
import SRTTransport

/// Our listener and caller against the SRT peers operators use: ffmpeg (libavformat's libsrt) publishing into our
/// listener, and our caller sending to srt-live-transmit. Loopback only; every peer started is ended.
@Suite(.serialized)
struct SRTInteropTests {
    static let passphrase = "interop-passphrase-7"

    @Test("ffmpeg publishes MPEG-TS into our listener: the bytes arrive as valid TS with the H.264 stream")
    func ffmpegPublishes() async throws {
        let received = ByteSink()
        let accepted = Inbox<SRTConnection>()
        let streamIDs = Inbox<String>()
        let refused = Inbox<String>()
        let listener = try SRTListener(host: "127.0.0.1", port: 0, admit: { streamID, _ in
            streamIDs.append(streamID)
            guard let id = try? SRTStreamID(parsing: streamID), id.resource == "live/k", id.mode == .publish else {
                return .refuse(reason: "the streamid names no waiting job", code: .notFound)
            }
            return .accept(passphrase: Self.passphrase)
        }, onAccept: { connection, _ in
            connection.start(receive: received.append, closed: { _ in })
            accepted.append(connection)
        }, onRefused: { _, reason in refused.append(reason) })
        defer {
            for connection in accepted.all { connection.close() }
            listener.close()
        }
        let ffmpeg = try BackgroundProcess("ffmpeg", [
            "-hide_banner", "-nostdin", "-loglevel", "error", "-re", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25",
            "-t", "3", "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-g", "25", "-f", "mpegts",
            "srt://127.0.0.1:\(listener.boundPort)?streamid=publish:live/k&passphrase=\(Self.passphrase)",
        ])
        defer { ffmpeg.end() }
        #expect(ffmpeg.wait(seconds: 60) == 0, "ffmpeg: \(ffmpeg.stderr)")
        #expect(streamIDs.all == ["publish:live/k"])
        #expect(refused.count == 0)
        // The last messages wait out the receiver's latency; the count stops growing once they are in.
        var last = -1
        #expect(await eventually(timeout: .seconds(10)) {
            defer { last = received.count }
            return received.count > 0 && received.count == last
        })
        let bytes = received.all
        #expect(bytes.count > 20 * 188)
        #expect(bytes.count % 188 == 0)
        #expect(stride(from: 0, to: bytes.count, by: 188).allSatisfy { bytes[$0] == 0x47 }, "a TS packet lost its sync byte")

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("srt-ingest-\(UUID().uuidString).ts")
        try Data(bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let probe = try await Subprocess.check("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name",
                                                          "-of", "csv=p=0", file.path])
        // ffprobe lists the stream under its program too, so the same name may come twice.
        #expect(Set(probe.split(whereSeparator: \.isNewline)) == ["h264"], "\(probe)")
    }

    @Test("our caller sends to srt-live-transmit: what it writes out equals what we sent")
    func callerToSrtLiveTransmit() async throws {
        let port = try SRTTestPeers.freeUDPPort()
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("srt-slt-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: output) }
        // srt-live-transmit writes only to stdout (file://con); -a:no ends it when the caller leaves, flushing stdout.
        let peer = try BackgroundProcess("/bin/sh", ["-c", "exec srt-live-transmit -q -a:no "
            + "'srt://127.0.0.1:\(port)?mode=listener&passphrase=\(Self.passphrase)' file://con > '\(output.path)'"])
        defer { peer.end() }
        #expect(await eventually(timeout: .seconds(15)) { SRTTestPeers.isUDPBound(port) }, "srt-live-transmit: \(peer.stderr)")

        let url = try SRTURL(parsing: "srt://127.0.0.1:\(port)?passphrase=\(Self.passphrase)&streamid=publish:live/k")
        let caller = try await SRTTestPeers.connect(url, timeout: .seconds(10)).get()
        let bytes = SRTTestPeers.pattern(SRTConnection.messageSize * 500, seed: 9)
        try await SRTTestPeers.sendPaced(bytes, on: caller)
        // Every message acknowledged before the close, which drops what is still unacknowledged.
        #expect(await eventually(timeout: .seconds(15)) { (try? caller.statistics().unacknowledgedPackets) == 0 })
        caller.close()
        #expect(peer.wait(seconds: 20) != nil, "srt-live-transmit did not end: \(peer.stderr)")
        let written = try [UInt8](Data(contentsOf: output))
        #expect(written.count == bytes.count)
        #expect(written == bytes)
    }

    @Test("our caller is refused by srt-live-transmit for a wrong passphrase, and says so")
    func callerWrongPassphrase() async throws {
        let port = try SRTTestPeers.freeUDPPort()
        let peer = try BackgroundProcess("srt-live-transmit", ["-q", "-a:no",
                                                               "srt://127.0.0.1:\(port)?mode=listener&passphrase=\(Self.passphrase)", "file://con"])
        // It waits for a caller and ignores SIGTERM meanwhile; nothing of its output matters here.
        defer { peer.end(grace: 1) }
        #expect(await eventually(timeout: .seconds(15)) { SRTTestPeers.isUDPBound(port) })
        let result = await SRTTestPeers.connect(SRTURL(host: "127.0.0.1", port: port, passphrase: "wrong-passphrase-0"))
        #expect(result.failure.map { "\($0)" } == "the peer refused: wrong passphrase (reject code 10)")
    }
}
