import Foundation
@testable import Sluice
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
}
