import Foundation

/// A child process running while the test goes on (publishers, players, `sluice run`). Its standard error goes to a
/// file, not a pipe: nobody drains a pipe while the test waits, and a full one would block the child.
public final class BackgroundProcess: @unchecked Sendable {
    // Reason: `process` is set up before `run()` and then only read; `errorFile` never changes.
    public let process = Process()
    private let errorFile: String
    private let outputFile: String?

    /// Starts `executable` (a bare name is looked up in /usr/bin) with `arguments` and this process's environment
    /// plus `environment`; standard error is kept in a file of its own under `SLUICE_TEST_WORK` (or the temporary
    /// folder). With `keepingOutput`, standard output is kept beside it (`stdout`); else it is discarded.
    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:], keepingOutput: Bool = false) throws {
        process.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : "/usr/bin/\(executable)")
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        let base = ProcessInfo.processInfo.environment["SLUICE_TEST_WORK"] ?? NSTemporaryDirectory()
        let folder = (base as NSString).appendingPathComponent("stderr-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        errorFile = folder + "/stderr.txt"
        process.standardError = try Self.newFile(errorFile)
        outputFile = keepingOutput ? folder + "/stdout.txt" : nil
        if let outputFile { process.standardOutput = try Self.newFile(outputFile) }
        try process.run()
    }

    /// An empty file at `path`, open for writing.
    private static func newFile(_ path: String) throws -> FileHandle {
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        return try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    }

    /// The process has exited (its status is `wait`'s).
    public var hasExited: Bool { !process.isRunning }

    /// Waits up to `seconds` for the exit; returns the status, or nil (and kills the process) on timeout.
    @discardableResult
    public func wait(seconds: Double) -> Int32? {
        let deadline = Deadline(seconds: seconds)
        while process.isRunning && !deadline.hasPassed { usleep(20_000) }
        guard !process.isRunning else {
            end()
            return nil
        }
        return process.terminationStatus
    }

    /// Ends the process: SIGTERM, then SIGKILL after `grace` seconds. A child can come with SIGTERM blocked (children
    /// of a test process under ThreadSanitizer inherit a mask that blocks most signals), and Foundation's
    /// `waitUntilExit` spins a run loop without sources at full CPU, so this polls instead.
    public func end(grace: Double = 5) {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Deadline(seconds: grace)
        while process.isRunning && !deadline.hasPassed { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        while process.isRunning { usleep(20_000) }
    }

    /// What the process wrote to standard output so far, if it was kept (`keepingOutput`).
    public var stdout: String { outputFile.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) } ?? "" }

    /// What the process wrote to standard error so far.
    public var stderr: String { (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? "" }

    deinit {
        end()
    }
}

extension Array where Element == String {
    /// True when `part` occurs in this array as one unbroken run (a player that joined at a keyframe).
    public func containsContiguous(_ part: [String]) -> Bool {
        guard !part.isEmpty, part.count <= count else { return part.isEmpty }
        return firstRange(of: part) != nil
    }
}
