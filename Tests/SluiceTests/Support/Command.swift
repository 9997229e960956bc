import Foundation

/// Runs an external program (ffmpeg/ffprobe as referees, the `sluice` binary) and captures its output.
struct CommandResult {
    var status: Int32
    var stdout: Data
    var stderr: String
    var text: String { String(decoding: stdout, as: UTF8.self) }
}

enum CommandError: Error, CustomStringConvertible {
    case failed(String, CommandResult)
    var description: String {
        if case let .failed(command, result) = self { return "\(command) exited \(result.status): \(result.stderr.suffix(2000))" }
        return "command failed"
    }
}

enum Command {
    /// Runs `executable` with `arguments`; standard output and error are read concurrently.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil, input: Data? = nil, check: Bool = true) throws -> CommandResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : "/usr/bin/\(executable)")
        process.arguments = arguments
        if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let stdin = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : stdin
        try process.run()
        if let input {
            stdin.fileHandleForWriting.write(input)
            try stdin.fileHandleForWriting.close()
        }
        let group = DispatchGroup()
        nonisolated(unsafe) var errData = Data()
        group.enter()
        DispatchQueue.global().async {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        let result = CommandResult(status: process.terminationStatus, stdout: outData, stderr: String(decoding: errData, as: UTF8.self))
        if check && result.status != 0 {
            throw CommandError.failed(([executable] + arguments).joined(separator: " "), result)
        }
        return result
    }

    static func ffmpeg(_ arguments: [String]) throws {
        try run("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y"] + arguments)
    }

    /// The `sluice` binary built by `scripts/test` (SLUICE_BIN), or the debug build next to the tests.
    static var sluiceBinary: String {
        if let path = ProcessInfo.processInfo.environment["SLUICE_BIN"] { return path }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../.build/debug/sluice").standardizedFileURL.path
    }
}
