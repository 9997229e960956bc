import Foundation
import Testing

@testable import JobStore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fresh directory under the system temp dir, removed when the test is done with it.
final class TemporaryDirectory {
    /// The directory's path.
    let path: String

    /// Creates the directory with `mkdtemp`, so parallel tests never share one.
    init() throws {
        var template = Array((NSTemporaryDirectory() + "/jobstore-tests-XXXXXX").utf8CString)
        let created = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.flatMap { mkdtemp($0) }
        }
        let made = try #require(created, "mkdtemp failed")
        path = String(cString: made)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// A path inside the directory.
    func file(_ name: String) -> String {
        path + "/" + name
    }
}

/// A clock tests move by hand; `@unchecked Sendable` because every access holds `lock`.
final class ManualClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    /// Starts at a fixed time with whole milliseconds, so stored and read times compare equal.
    init(start: Date = Date(timeIntervalSince1970: 1_795_238_356.123)) {
        current = start
    }

    /// The current time.
    func now() -> Date {
        lock.withLock { current }
    }

    /// Moves the clock forward.
    func advance(by seconds: TimeInterval) {
        lock.withLock { current += seconds }
    }
}

/// A store on a new file in `directory`, stamped by `clock`.
func makeStore(in directory: TemporaryDirectory, clock: ManualClock = ManualClock(), name: String = "jobs.sqlite")
    throws -> JobStore
{
    try JobStore(path: directory.file(name), now: { clock.now() })
}

/// A job with two outputs, as the worker would record it.
func sampleJob(id: String = "cam42-2026-11-21", workerID: String? = "worker-a", maxAttempts: Int? = 3) -> NewJob {
    NewJob(
        id: id,
        spec: #"{"id":"\#(id)","input":"rtmp://ingest.local/live/cam42","outputs":[{"url":"rtmp://a.example/live/KEY"},{"url":"cam42.flv"}]}"#,
        specRedacted: #"{"id":"\#(id)","input":"rtmp://ingest.local/live/cam42","outputs":[{"url":"rtmp://a.example/live/***"},{"url":"cam42.flv"}]}"#,
        input: "rtmp://ingest.local/live/cam42",
        outputs: [NewOutput(url: "rtmp://a.example/live/***", format: "flv"), NewOutput(url: "cam42.flv", format: "flv")],
        priority: 5,
        maxAttempts: maxAttempts,
        workerID: workerID)
}

/// The result of running the sqlite3 shell, as an admin would.
struct ShellResult {
    let status: Int32
    let output: String
    let errorOutput: String
}

/// Runs `/usr/bin/sqlite3 path sql` and captures what it prints.
func sqlite3Shell(_ path: String, _ arguments: [String]) throws -> ShellResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    process.arguments = [path] + arguments
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ShellResult(
        status: process.terminationStatus,
        output: String(decoding: outData, as: UTF8.self),
        errorOutput: String(decoding: errData, as: UTF8.self))
}

/// The permission bits of a file, or nil if it does not exist.
func permissionBits(_ path: String) -> mode_t? {
    var status = stat()
    guard stat(path, &status) == 0 else { return nil }
    return status.st_mode & 0o777
}
