import Foundation
import JobQueue
@testable import Sluice
import Testing
import JobDocument

/// `--live-slots` and `--batch-slots` (`--concurrency` its older name), and how jobs are classed.
@Suite struct WorkerSlotOptionTests {
    @Test("slot options out of range, or both 0, are usage errors naming the option; SLUICE_BATCH_SLOTS and SLUICE_CONCURRENCY are read")
    func refusals() throws {
        let folder = Fixtures.scratch("slot-options")
        let common = ["worker", "--db", (folder as NSString).appendingPathComponent("jobs.sqlite"),
                      "--amqp-url", "amqp://guest:guest@127.0.0.1:1/%2F", "--input-root", folder, "--output-root", folder]
        let live = try Command.run(Command.sluiceBinary, common + ["--live-slots=-1"], check: false)
        #expect(live.status == 64)
        #expect(live.stderr.contains("--live-slots must be 0…4096, got -1"), "\(live.stderr)")
        let batch = try Command.run(Command.sluiceBinary, common + ["--concurrency", "300"], check: false)
        #expect(batch.status == 64)
        #expect(batch.stderr.contains("--batch-slots (--concurrency) must be 0…256, got 300"), "\(batch.stderr)")
        let none = try Command.run(Command.sluiceBinary, common + ["--batch-slots", "0", "--live-slots", "0", "--encode-slots", "0"], check: false)
        #expect(none.status == 64)
        #expect(none.stderr.contains("cannot all be 0"), "\(none.stderr)")
        let encode = try Command.run(Command.sluiceBinary, common + ["--encode-slots", "2000"], check: false)
        #expect(encode.status == 64)
        #expect(encode.stderr.contains("--encode-slots must be 0…1024, got 2000"), "\(encode.stderr)")
        let fromEncodeVariable = try Command.run(Command.sluiceBinary, common, environment: ["SLUICE_ENCODE_SLOTS": "-3"], check: false)
        #expect(fromEncodeVariable.stderr.contains("--encode-slots must be 0…1024, got -3"), "\(fromEncodeVariable.stderr)")
        let fromBatchVariable = try Command.run(Command.sluiceBinary, common, environment: ["SLUICE_BATCH_SLOTS": "999"], check: false)
        #expect(fromBatchVariable.stderr.contains("got 999"), "\(fromBatchVariable.stderr)")
        let fromOldVariable = try Command.run(Command.sluiceBinary, common, environment: ["SLUICE_CONCURRENCY": "777"], check: false)
        #expect(fromOldVariable.stderr.contains("got 777"), "\(fromOldVariable.stderr)")
        let fromLiveVariable = try Command.run(Command.sluiceBinary, common, environment: ["SLUICE_LIVE_SLOTS": "5000"], check: false)
        #expect(fromLiveVariable.stderr.contains("--live-slots must be 0…4096, got 5000"), "\(fromLiveVariable.stderr)")
        let help = try Command.run(Command.sluiceBinary, ["worker", "--help"], check: false)
        #expect(help.text.contains("--batch-slots") && help.text.contains("--concurrency") && help.text.contains("--live-slots")
                && help.text.contains("--encode-slots"), "\(help.text)")
    }

    @Test("rtmp and rtmps inputs, pulled or listened, are live, or encode when they encode video; files are batch; a class with no slots is not consumed")
    func classes() throws {
        func spec(_ input: String, _ extra: String = "") throws -> JobSpec {
            try JobSpec.parse(Data(#"{"id": "c", "input": \#(input), "outputs": ["o.flv"]\#(extra)}"#.utf8))
        }
        #expect(try spec(#""rtmp://h/live/k""#).jobClass == .live)
        #expect(try spec(#""rtmps://h/live/k""#).jobClass == .live)
        #expect(try spec(#"{"url": "rtmp://0.0.0.0:1935/live/k", "listen": true}"#).jobClass == .live)
        #expect(try spec(#""in/a.mp4""#).jobClass == .batch)
        let encode = #", "video": {"mode": "encode", "width": 1280, "height": 720}"#
        #expect(try spec(#""rtmp://h/live/k""#, encode).jobClass == .encode)
        #expect(try spec(#"{"url": "rtmps://0.0.0.0:443/live/k", "listen": true}"#, encode).jobClass == .encode)
        #expect(try spec(#""in/a.mp4""#, encode).jobClass == .batch, "a file encode keeps its batch slot")
        #expect(try spec(#""rtmp://h/live/k""#, #", "audio": {"mode": "encode"}"#).jobClass == .live, "AAC alone costs no unit")
        let paths = PathPolicy.trusted
        #expect(WorkerConfiguration(workerID: "w", concurrency: 3, paths: paths).classPrefetch
                == [.live: 100, .batch: 3, .encode: UInt16(WorkerConfiguration.defaultEncodeSlots)])
        #expect(WorkerConfiguration(workerID: "w", batchSlots: 0, liveSlots: 7, encodeSlots: 0, paths: paths).classPrefetch == [.live: 7])
        #expect(WorkerConfiguration(workerID: "w", batchSlots: 0, liveSlots: 0, encodeSlots: 5, paths: paths).classPrefetch == [.encode: 5])
        var configuration = WorkerConfiguration(workerID: "w", batchSlots: 2, liveSlots: 0, encodeSlots: 0, paths: paths)
        configuration.concurrency = 4
        #expect(configuration.batchSlots == 4 && configuration.classPrefetch == [.batch: 4])
    }
}
