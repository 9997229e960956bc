import Foundation
import JobStore
import SluiceTestSupport
import Testing

/// libav is opened by a worker's first codec job, not at start (docs/ARCHITECTURE.md §3): a worker that only relays
/// never maps libavcodec, libavformat and the ~140 libraries they pull in.
@Suite("Codec libraries on first use", .enabled(if: LongRestream.isAvailable, "needs SLUICE_TEST_AMQP_TIMEOUT_URL, SLUICE_TEST_RTMP_URL and SLUICE_TEST_RTMP_STAT (scripts/test starts them)"))
struct CodecLibrariesTests {
    static func libav(_ files: Set<String>) -> [String] {
        files.filter { path in
            let name = (path as NSString).lastPathComponent
            return ["libavutil.so", "libavcodec.so", "libavformat.so", "libswscale.so", "libswresample.so"].contains { name.hasPrefix($0) }
        }.sorted()
    }

    @Test("a worker relaying a restream and writing every live file format maps no libav; its first codec job opens it beside the relay")
    func loadedByTheFirstCodecJob() async throws {
        let fixture = try await LongRestream("libav", seconds: 40)
        let worker = try fixture.startWorker("w-libav")
        try await fixture.enqueue()
        try #require(await eventually(timeout: .seconds(30)) { (try? fixture.publishers(of: fixture.destination).count) == 1 },
                     "the restream never published: \(fixture.diagnosis(worker))")
        let relaying = try worker.process.mappedFiles()
        // The read itself is checked: the worker's own libraries are there.
        #expect(relaying.contains { $0.contains("libsqlite3.so") }, "\(relaying.sorted())")
        #expect(Self.libav(relaying).isEmpty, "a relaying worker mapped \(Self.libav(relaying))")
        // Its start checked that libav and libsrt load, in a child: this process still maps neither.
        #expect(worker.process.log.contains("codec libraries: libav and libsrt load"), "\(worker.process.log.prefix(3000))")
        #expect(!relaying.contains { $0.contains("libsrt") }, "a relaying worker mapped libsrt")

        let rtmp = try #require(LongRestream.rtmpURL)
        let store = try fixture.store(worker.id)
        // A live copy job writing every file format (HLS with parts, .mp4, .ts, Annex B, ADTS, a recording in segments)
        // runs on the relay engine: its sinks on the file pool, still no libav.
        let filesID = fixture.id + "-files"
        let files = #"{"id": "\#(filesID)", "input": {"url": "\#(rtmp)/\#(fixture.source)", "timeout_s": 10}, "outputs": ["#
            + #"{"url": "hls/index.m3u8", "segment_s": 1, "window": 4, "part_s": 0.5}, "files.mp4", "files.ts", "files.h264", "files.aac", "#
            + #"{"url": "rec/seg-%H%M%S.ts", "segment_s": 2}], "max_duration_s": 5}"#
        try files.write(toFile: fixture.folder + "/files.json", atomically: true, encoding: .utf8)
        let queued = try await Subprocess.run(Subprocess.sluice, ["enqueue", "--amqp-url", fixture.amqpURL, fixture.folder + "/files.json"])
        try #require(queued.status == 0, "\(queued.output)")
        let filesEnded = try await eventually(timeout: .seconds(40)) { try store.job(id: filesID)?.state.isTerminal == true }
        let filesRecord = try store.job(id: filesID)
        #expect(filesEnded && filesRecord?.state == .succeeded, "\(String(describing: filesRecord)): \(worker.process.log.suffix(3000))")
        for name in ["files.mp4", "files.ts", "files.h264", "files.aac", "hls/index.m3u8"] {
            let probe = try await Subprocess.run("/usr/bin/ffprobe", ["-v", "error", "-count_packets", "-show_entries", "stream=codec_name,nb_read_packets",
                                                                      "-of", "csv=p=0", fixture.folder + "/out/" + name])
            #expect(probe.status == 0 && !probe.output.isEmpty && !probe.output.contains(",0\n"), "\(name): \(probe.output)")
        }
        let playlist = try String(contentsOfFile: fixture.folder + "/out/hls/index.m3u8", encoding: .utf8)
        #expect(playlist.contains("#EXT-X-ENDLIST") && playlist.contains(".m4s"), "\(playlist)")
        let segments = try FileManager.default.contentsOfDirectory(atPath: fixture.folder + "/out/rec").filter { $0.hasSuffix(".ts") }
        #expect(segments.count >= 2, "\(segments)")
        let afterFiles = try worker.process.mappedFiles()
        #expect(afterFiles.contains { $0.contains("libsqlite3.so") }, "\(afterFiles.sorted())")
        #expect(Self.libav(afterFiles).isEmpty, "a live copy job's file outputs mapped \(Self.libav(afterFiles))")

        // A live job that encodes its audio is a codec-engine job (`CodecJob`), which opens libav before it starts.
        // Its file output writes on the engine's file pool: no thread of its own (`sluice-out-N`) while it runs.
        let codecID = fixture.id + "-codec"
        let job = #"{"id": "\#(codecID)", "input": {"url": "\#(rtmp)/\#(fixture.source)", "timeout_s": 10}, "#
            + #""audio": {"mode": "encode"}, "outputs": ["codec.flv"], "max_duration_s": 4}"#
        try job.write(toFile: fixture.folder + "/codec.json", atomically: true, encoding: .utf8)
        let enqueued = try await Subprocess.run(Subprocess.sluice, ["enqueue", "--amqp-url", fixture.amqpURL, fixture.folder + "/codec.json"])
        try #require(enqueued.status == 0, "\(enqueued.output)")
        var threadsSeen = Set<String>()
        let ended = try await eventually(timeout: .seconds(40)) {
            threadsSeen.formUnion(worker.process.threadNames())
            return try store.job(id: codecID)?.state.isTerminal == true
        }
        // The sampling saw the codec job's own thread, so it ran while the job did (and threads' names reach the
        // kernel: Linux keeps at most 15 bytes).
        #expect(threadsSeen.contains("sluice-codec"), "\(threadsSeen.sorted())")
        // The worker's own threads carry their names too (the broker's connection started with the worker), not
        // Foundation's race-lost `sluice`.
        #expect(threadsSeen.contains("sluice-amqp"), "\(threadsSeen.sorted())")
        #expect(!threadsSeen.contains { $0.hasPrefix("sluice-out-") }, "a live job's file output had a thread: \(threadsSeen.sorted())")
        let record = try store.job(id: codecID)
        #expect(ended && record?.state == .succeeded, "\(String(describing: record)): \(worker.process.log.suffix(3000))")
        let written = try FileManager.default.attributesOfItem(atPath: fixture.folder + "/out/codec.flv")[.size] as? Int
        #expect((written ?? 0) > 0, "codec.flv: \(String(describing: written)) bytes")
        let loaded = Self.libav(try worker.process.mappedFiles())
        #expect(["libavcodec.so", "libavformat.so"].allSatisfy { name in loaded.contains { $0.contains(name) } }, "\(loaded)")
        // The restream went on throughout.
        #expect(try store.job(id: fixture.id)?.state == .running)
    }
}
