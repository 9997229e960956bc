import Foundation

/// A short-lived external program with its combined output.
public enum Subprocess {
    public struct Failure: Error, CustomStringConvertible {
        public let command: String
        public let output: String
        public init(command: String, output: String) {
            self.command = command
            self.output = output
        }
        public var description: String { "\(command) failed: \(output.suffix(2000))" }
    }

    /// Runs the program on a thread of its own, so a slow child (rabbitmqctl boots an Erlang VM) never
    /// holds one of the few cooperative-pool threads the parallel tests share.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) async throws
        -> (status: Int32, output: String)
    {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try runBlocking(executable, arguments, environment: environment) })
            }
            thread.start()
        }
    }

    private static func runBlocking(_ executable: String, _ arguments: [String], environment: [String: String])
        throws -> (status: Int32, output: String)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : "/usr/bin/\(executable)")
        process.arguments = arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    public static func check(_ executable: String, _ arguments: [String]) async throws -> String {
        let result = try await run(executable, arguments)
        guard result.status == 0 else { throw Failure(command: ([executable] + arguments).joined(separator: " "), output: result.output) }
        return result.output
    }
}
