import Foundation

/// The libraries a worker opens on first use (libav, libsrt), checked at its start in a child process (`sluice
/// libraries`): loading them here to see would map libav's ~140 libraries into a worker that may only ever relay, and
/// closing them again does not unmap them all.
public enum LibraryCheck {
    /// What fails without each library, as the worker's start line and `/healthz` say it.
    public static let consequences = ["libav": "file jobs, encodes, renditions and slates fail", "libsrt": "SRT inputs and outputs fail"]

    /// The child's output: one line per library.
    public static func lines(libav: String?, libsrt: String?) -> String {
        ["libav": libav, "libsrt": libsrt].sorted { $0.key < $1.key }
            .map { "\($0.key): \(($0.value ?? "ok").replacingOccurrences(of: "\n", with: " "))\n" }.joined()
    }

    /// One sentence per library the child's `output` says cannot be loaded; empty when both load.
    public static func problems(fromOutput output: String) -> [String] {
        var found: [String: String] = [:]
        for line in output.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            found[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return consequences.keys.sorted().compactMap { name in
            guard let status = found[name] else { return "\(name) could not be checked (\(consequences[name] ?? "")): the check said nothing of it" }
            return status == "ok" ? nil : "\(name) cannot be loaded (\(consequences[name] ?? "")): \(status)"
        }
    }

    /// Runs `executable libraries` (this binary by default) for at most `timeout` and returns the problems it reports.
    public static func problems(executable: String = "/proc/self/exe", timeout: Duration = .seconds(20)) -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["libraries"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return ["the codec libraries could not be checked: \(executable) libraries did not start: \(error)"]
        }
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline { usleep(20_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            return ["the codec libraries could not be checked: \(executable) libraries took more than \(timeout)"]
        }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return problems(fromOutput: text)
    }
}
