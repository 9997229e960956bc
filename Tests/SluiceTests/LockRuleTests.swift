import Foundation
import Testing

/// The locks ThreadSanitizer can see. `Synchronization.Mutex` waits on a futex in the uninstrumented standard library on
/// Linux, so TSan sees no order between two holders and reports every contended `withLock` as a race (the tsan stage
/// failed on `EditedOutputURLs.forget`, two threads each holding the lock). Shared state is behind `NIOLockedValueBox`
/// or `NIOLock` (pthread mutexes, which TSan intercepts); `Atomic` alone, for a single value, is fine.
@Suite("locks ThreadSanitizer can see")
struct LockRuleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("no Synchronization.Mutex in Sources or Tests")
    func noMutex() throws {
        let pattern = try Regex(#"\bMutex\s*[<(]"#)
        var found: [String] = []
        for folder in ["Sources", "Tests", "Benchmarks", "Fuzz"] {
            let base = LockRuleTests.root.appendingPathComponent(folder)
            guard let files = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { continue }
            for case let file as URL in files where file.pathExtension == "swift" {
                let text = try String(contentsOf: file, encoding: .utf8)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let code = line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                    if code.contains(pattern) { found.append("\(folder)/\(file.lastPathComponent):\(number + 1)") }
                }
            }
        }
        #expect(found.isEmpty, "Synchronization.Mutex, invisible to ThreadSanitizer on Linux, at \(found)")
        // The scan reached the sources (a wrong root would pass it vacuously).
        #expect(FileManager.default.fileExists(atPath: LockRuleTests.root.appendingPathComponent("Sources/Sluice/Worker.swift").path))
    }
}
