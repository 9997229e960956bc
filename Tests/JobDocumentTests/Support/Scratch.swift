import Foundation

/// Folders and helper processes for the job document's tests (no media, no services).
enum Scratch {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A fresh folder for one test, under the test script's work folder when there is one.
    static func folder(_ name: String) -> String {
        let base = ProcessInfo.processInfo.environment["SLUICE_TEST_WORK"] ?? NSTemporaryDirectory()
        let path = (base as NSString).appendingPathComponent("jobdoc-\(name)-\(getpid())-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    struct ProcessFailed: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `/usr/bin/<executable>` with `input` on stdin and returns its stdout; a non-zero exit throws with stderr.
    static func run(_ executable: String, _ arguments: [String], input: Data) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/" + executable)
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        nonisolated(unsafe) var errors = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errors = stderr.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ProcessFailed(description: "\(executable) exited \(process.terminationStatus): \(String(decoding: errors, as: UTF8.self).suffix(2000))")
        }
        return String(decoding: output, as: UTF8.self)
    }
}
