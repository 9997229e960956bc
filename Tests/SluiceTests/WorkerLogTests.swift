import Foundation
@testable import Sluice
import SluiceTestSupport
import Testing

/// The worker's swift-log lines, captured instead of written to standard error.
@Suite struct WorkerLogTests {
    final class Lines: @unchecked Sendable {
        // Reason: `lines` is guarded by `lock`.
        private let lock = NSLock()
        private var lines: [String] = []
        var all: [String] { lock.withLock { lines } }
        func append(_ line: String) { lock.withLock { lines.append(line) } }
    }

    @Test("text: time, worker, job/state/attempt, then the message; warnings say so; JSON keeps attempt a number")
    func formats() throws {
        let lines = Lines()
        let text = WorkerLog(format: .text, workerID: "w-1", write: lines.append)
        text("job.running (attempt 2)", job: "cam42", state: "running", attempt: 2)
        text("lost connection", level: .warning)
        let json = WorkerLog(format: .json, workerID: "w-1", write: lines.append)
        json("job.failed (attempt 3): refused", job: "cam42", state: "failed", attempt: 3)

        let all = lines.all
        try #require(all.count == 3)
        #expect(all[0].wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z w-1 job=cam42 state=running attempt=2: job\.running \(attempt 2\)/) != nil, "\(all[0])")
        #expect(all[1].hasSuffix("Z w-1 warning: lost connection"), "\(all[1])")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(all[2].utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["at", "level", "worker", "job", "state", "attempt", "message"])
        #expect(object["attempt"] as? Int == 3)
        #expect(object["state"] as? String == "failed" && object["job"] as? String == "cam42" && object["level"] as? String == "info")
        #expect(object["message"] as? String == "job.failed (attempt 3): refused")
        #expect(!all[2].contains("\n"))
    }

    @Test("log and event timestamps: the same text as Foundation's ISO 8601 style with fractional seconds, 1900 to 2200")
    func timestampsMatchFoundation() {
        let reference = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        var generator = SeededGenerator(seed: 2026_11_27)
        // Whole seconds, a millisecond either side, the last millisecond of a leap day, and two epochs' edges.
        var instants: [Double] = [0, 0.001, 0.999, -0.001, -1, 951_868_799.999, 946_684_800, 4_102_444_800.5, 1_795_804_485.672]
        instants += (0..<2000).map { _ in Double.random(in: -2_208_988_800...7_258_118_400, using: &generator) }
        instants += (0..<500).map { _ in Double(Int64.random(in: -2_208_988_800_000...7_258_118_400_000, using: &generator)) / 1000 }
        for seconds in instants {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(JobsFormatting.iso(date) == date.formatted(reference), "at \(seconds) s")
        }
        #expect(JobsFormatting.iso(nil) == "")
    }
}
