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

    @Test("a worker relaying a restream maps no libav; its first codec job opens it and succeeds beside the relay")
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

        // A live job with an Annex B output is a codec-engine job (`CodecJob`), which opens libav before it starts.
        let rtmp = try #require(LongRestream.rtmpURL)
        let codecID = fixture.id + "-codec"
        let job = #"{"id": "\#(codecID)", "input": {"url": "\#(rtmp)/\#(fixture.source)", "timeout_s": 10}, "#
            + #""outputs": ["codec.h264"], "max_duration_s": 4}"#
        try job.write(toFile: fixture.folder + "/codec.json", atomically: true, encoding: .utf8)
        let enqueued = try await Subprocess.run(Subprocess.sluice, ["enqueue", "--amqp-url", fixture.amqpURL, fixture.folder + "/codec.json"])
        try #require(enqueued.status == 0, "\(enqueued.output)")
        let store = try fixture.store(worker.id)
        let ended = try await eventually(timeout: .seconds(40)) { try store.job(id: codecID)?.state.isTerminal == true }
        let record = try store.job(id: codecID)
        #expect(ended && record?.state == .succeeded, "\(String(describing: record)): \(worker.process.log.suffix(3000))")
        let written = try FileManager.default.attributesOfItem(atPath: fixture.folder + "/out/codec.h264")[.size] as? Int
        #expect((written ?? 0) > 0, "codec.h264: \(String(describing: written)) bytes")
        let loaded = Self.libav(try worker.process.mappedFiles())
        #expect(["libavcodec.so", "libavformat.so"].allSatisfy { name in loaded.contains { $0.contains(name) } }, "\(loaded)")
        // The restream went on throughout.
        #expect(try store.job(id: fixture.id)?.state == .running)
    }
}
