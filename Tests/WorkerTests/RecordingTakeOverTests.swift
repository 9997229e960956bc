import Foundation
import JobStore
import SluiceTestSupport
import Testing

/// A live recording in segments whose worker is killed: two real workers, each with its own database, and the real
/// broker. The worker that takes the job over finds the cut-short segment on disk (the killed worker's record of it
/// went with that worker), closes it playable, and records on (docs/ARCHITECTURE.md §7).
@Suite("Recording take-over", .enabled(if: LongRestream.isAvailable, "needs SLUICE_TEST_AMQP_TIMEOUT_URL, SLUICE_TEST_RTMP_URL and SLUICE_TEST_RTMP_STAT (scripts/test starts them)"))
struct RecordingTakeOverTests {
    static let segment = 4.0

    @Test("kill -9 mid-segment: every closed segment plays, the cut-short one is closed playable by the worker that takes over, keeping every whole fragment written before the kill, and its segments follow on")
    func killedRecording() async throws {
        let fixture = try await LongRestream("rec-kill", seconds: 16)
        let pair = [try fixture.startWorker("w-a"), try fixture.startWorker("w-b")]
        try await fixture.enqueue(outputs: #"[{"url": "rec/cam-%Y%m%dT%H%M%S.mp4", "segment_s": 4}]"#)
        var found: LongRestream.Worker?
        try #require(await eventually(timeout: .seconds(30)) {
            found = try pair.first { try fixture.store($0.id).job(id: fixture.id)?.state == .running }
            return found != nil
        }, "no worker runs the job: \(pair.map { fixture.diagnosis($0) })")
        let holder = try #require(found)
        let other = try #require(pair.first { $0.id != holder.id })
        // Two segments closed, then the open one's part holds two whole fragments (judged on disk, so a slow
        // machine waits longer rather than failing): what the kill finds written is what the take-over must keep.
        try #require(await eventually(timeout: .seconds(30)) {
            try fixture.store(holder.id).segments(jobID: fixture.id).filter { $0.closedAt != nil }.count >= 2
        }, "\(fixture.diagnosis(holder))")
        let folder = fixture.folder + "/out/rec"
        var written = (part: "", fragments: 0, bytes: 0)
        try #require(await eventually(timeout: .seconds(30)) {
            written = Self.openPart(in: folder)
            // Two, not more: a segment of 4 s holds about four, so the kill leaves it a second or more from its close.
            return written.fragments == 2
        }, "the open segment's part never held two whole fragments: \(written) \(fixture.diagnosis(holder))")
        let killedAt = Date().timeIntervalSince1970
        holder.process.kill(SIGKILL)

        // The other worker takes the job over and records until max_duration_s.
        try #require(await eventually(timeout: .seconds(60)) {
            try fixture.store(other.id).job(id: fixture.id)?.state == .succeeded
        }, "\(fixture.diagnosis(other))")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(files.filter { $0.hasSuffix(".part") }.isEmpty, "left behind: \(files.sorted())")
        let segments = files.filter { $0.hasSuffix(".mp4") }.sorted()
        for name in segments {
            let decode = try await Subprocess.run("ffmpeg", ["-v", "error", "-i", folder + "/" + name, "-enc_time_base:v", "-1", "-f", "null", "-"])
            #expect(decode.status == 0 && decode.output.isEmpty, "\(name) does not play cleanly: \(decode.output)")
        }

        // The cut-short segment: closed by the other worker, marked salvaged, keeping at least every whole fragment its
        // part held before the kill (more may have been written between that look and the kill), and cut after a whole
        // fragment: nothing it holds is later than the kill (a second of slack: its start is named to the second).
        let store = try fixture.store(other.id)
        let messages = try store.events(jobID: fixture.id).filter { $0.kind == .segmentClosed }.compactMap(\.message)
        let rows = try store.segments(jobID: fixture.id)
        let salvaged = try #require(rows.first { row in messages.contains { $0.contains("segment \(row.path) closed") && $0.contains("salvaged") } },
                                    "no salvaged segment in \(messages)")
        #expect(written.part.contains((salvaged.path as NSString).lastPathComponent), "killed while writing \(written.part), salvaged \(salvaged.path)")
        let start = salvaged.startAt.timeIntervalSince1970
        #expect(start < killedAt && killedAt - start < Self.segment + 2, "started at \(start), killed at \(killedAt)")
        let bytes = Int((try FileManager.default.attributesOfItem(atPath: salvaged.path)[.size] as? NSNumber)?.intValue ?? -1)
        #expect(bytes >= written.bytes && salvaged.bytes.map(Int.init) == bytes,
                "the salvaged segment has \(bytes) bytes (row: \(salvaged.bytes.map(String.init) ?? "none")); its part held \(written.bytes) in whole fragments before the kill")
        #expect(Self.wholeFragments(of: [UInt8](try Data(contentsOf: URL(fileURLWithPath: salvaged.path)))).bytes == bytes,
                "the salvaged segment does not end on a whole fragment")
        let duration = try await Self.duration(salvaged.path)
        #expect(duration > 0 && duration <= killedAt - start + 1,
                "the salvaged segment holds \(duration) s; it started \(killedAt - start) s before the kill")
        // The take-over's own segments follow: they start after the kill, and all of them were listed and closed.
        let after = rows.filter { $0.startAt.timeIntervalSince1970 > killedAt }
        #expect(after.count >= 2 && after.allSatisfy { $0.closedAt != nil && segments.contains(($0.path as NSString).lastPathComponent) },
                "\(rows.map { "\($0.path) \($0.startAt.timeIntervalSince1970)" })")
        // Segments the killed worker closed before it went are on disk too.
        #expect(segments.count >= after.count + 3, "\(segments)")
    }

    /// The part of the segment being written in `folder` (the newest), with how many whole fragments (`moof` + `mdat`)
    /// it holds and the bytes up to the end of the last one.
    static func openPart(in folder: String) -> (part: String, fragments: Int, bytes: Int) {
        let parts = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".part") }
        guard let part = parts.max(), let data = FileManager.default.contents(atPath: folder + "/" + part) else { return ("", 0, 0) }
        let whole = wholeFragments(of: [UInt8](data))
        return (part, whole.fragments, whole.bytes)
    }

    /// Walks an fMP4's top-level boxes: the whole `moof` + `mdat` pairs, and where the last one ends.
    static func wholeFragments(of file: [UInt8]) -> (fragments: Int, bytes: Int) {
        var offset = 0, fragments = 0, end = 0, inFragment = false
        while offset + 8 <= file.count {
            let size = file[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: file[offset + 4..<offset + 8], as: UTF8.self)
            guard size >= 8, offset + size <= file.count else { break }
            offset += size
            if type == "moof" { inFragment = true }
            if type == "mdat" && inFragment { fragments += 1; end = offset; inFragment = false }
        }
        return (fragments, end)
    }

    static func duration(_ path: String) async throws -> Double {
        let probe = try await Subprocess.run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path])
        return Double(probe.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }
}

/// A restream to an SRT destination whose worker is killed: the other worker takes it over and the destination
/// (srt-live-transmit listening, which takes the next caller once the first is gone) receives the stream again.
@Suite("SRT take-over", .enabled(if: LongRestream.isAvailable, "needs SLUICE_TEST_AMQP_TIMEOUT_URL, SLUICE_TEST_RTMP_URL and SLUICE_TEST_RTMP_STAT (scripts/test starts them)"))
struct SRTTakeOverTests {
    @Test("kill -9 of the holder of an RTMP → SRT restream: the SRT receiver gets the stream again from the other worker, and the TS it got decodes")
    func killedSRTRestream() async throws {
        let fixture = try await LongRestream("srt-kill", seconds: 40)
        let port = try await StackTests.freePort()
        let received = fixture.folder + "/received.ts"
        try #require(FileManager.default.createFile(atPath: received, contents: nil), "cannot create \(received)")
        let output = try #require(FileHandle(forWritingAtPath: received))
        let receiver = Process()
        receiver.executableURL = URL(fileURLWithPath: "/usr/bin/srt-live-transmit")
        receiver.arguments = ["-q", "srt://:\(port)?mode=listener", "file://con"]
        receiver.standardOutput = output
        receiver.standardError = FileHandle.nullDevice
        try receiver.run()
        defer { if receiver.isRunning { kill(receiver.processIdentifier, SIGKILL) } }
        let pair = [try fixture.startWorker("w-a"), try fixture.startWorker("w-b")]
        try await fixture.enqueue(outputs: #"["srt://127.0.0.1:\#(port)?streamid=publish:live/srtkill"]"#)
        let size = { ((try? FileManager.default.attributesOfItem(atPath: received)[.size]) as? Int) ?? 0 }
        var found: LongRestream.Worker?
        try #require(await eventually(timeout: .seconds(30)) {
            found = try pair.first { try fixture.store($0.id).job(id: fixture.id)?.state == .running }
            return found != nil && size() > 100_000
        }, "the SRT receiver got \(size()) bytes: \(pair.map { fixture.diagnosis($0) })")
        let holder = try #require(found)
        let other = try #require(pair.first { $0.id != holder.id })
        try await Task.sleep(for: .seconds(2))
        holder.process.kill(SIGKILL)
        let killed = ContinuousClock.now
        // What the killed worker had sent is in by now; then the receiver sees its caller gone (its idle timeout,
        // 5 s), takes the next one, and the file grows again.
        try await Task.sleep(for: .milliseconds(500))
        let atKill = size()
        let resumed = await eventually(timeout: .seconds(25)) { size() > atKill + 100_000 }
        #expect(resumed, "the receiver got nothing more after the kill: \(fixture.diagnosis(other))")
        print("SRT take-over: the receiver had the stream again \(ContinuousClock.now - killed) after the kill")
        #expect(try await eventually(timeout: .seconds(10)) { try fixture.store(other.id).job(id: fixture.id)?.takeovers == 1 },
                "\(fixture.diagnosis(other))")
        // Seconds of the other worker's stream, then the receiver goes (srt-live-transmit leaves on SIGTERM only once
        // its input ends; its SIGKILL may cut the last frame, which is not judged: the first 2 s are).
        try await Task.sleep(for: .seconds(3))
        kill(receiver.processIdentifier, SIGKILL)
        receiver.waitUntilExit()
        // What came after the kill, from the other worker: it starts with PAT/PMT and a keyframe and decodes without an
        // error. The file is whole 188-byte TS packets (every message is 7 of them), so a multiple of 188 starts one.
        // The fixture loops a clip whose audio overlaps at each loop; the muxer's notes on those timestamps are the source's.
        // The kill may have cut the killed worker's last frame short; the other worker's TS starts with a PAT and a PMT
        // whose continuity counters are 0 (a new muxer), found after the bytes the receiver had at the kill. The
        // receiver's last buffered write may be cut by its SIGKILL: only whole packets are kept.
        let all = [UInt8](try Data(contentsOf: URL(fileURLWithPath: received)))
        let packets = stride(from: atKill - atKill % 188, to: all.count - 2 * 188 + 1, by: 188)
        let start = try #require(packets.first { offset in
            let pat = all[offset..<offset + 188], pmt = all[offset + 188..<offset + 376]
            func pid(_ packet: ArraySlice<UInt8>) -> Int { Int(packet[packet.startIndex + 1] & 0x1F) << 8 | Int(packet[packet.startIndex + 2]) }
            func counter(_ packet: ArraySlice<UInt8>) -> UInt8 { packet[packet.startIndex + 3] & 0x0F }
            return pat.first == 0x47 && pid(pat) == 0 && counter(pat) == 0 && pmt.first == 0x47 && pid(pmt) != 0 && counter(pmt) == 0
        }, "no new TS (PAT and PMT with continuity counter 0) after the kill")
        try Data(all[start..<(start + (all.count - start) / 188 * 188)]).write(to: URL(fileURLWithPath: fixture.folder + "/after.ts"))
        let decode = try await Subprocess.run("ffmpeg", ["-v", "error", "-i", fixture.folder + "/after.ts", "-t", "2", "-enc_time_base:v", "-1", "-f", "null", "-"])
        let errors = decode.output.split(separator: "\n").filter { !$0.isEmpty && !$0.contains("non monotonically increasing dts") }
        #expect(decode.status == 0 && errors.isEmpty, "\(decode.output.prefix(2000))")
    }
}
