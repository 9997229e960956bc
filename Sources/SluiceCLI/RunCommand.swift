import ArgumentParser
import Foundation
import JobStore
import LiveRelay
import MediaEngine
import Sluice
import MediaJob
import JobDocument
import NIOConcurrencyHelpers

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run one job here, without a broker, and record it in SQLite.",
        discussion: "Exit status: 0 success (or the id already succeeded), 1 failure, 2 invalid job. Paths are used as given."
    )

    @OptionGroup var database: DatabaseOptions

    @Option(name: .long, help: ArgumentHelp("Worker id recorded with the job (env SLUICE_WORKER_ID).", valueName: "id"))
    var workerID: String = ProcessInfo.processInfo.environment["SLUICE_WORKER_ID"] ?? "run@\(ProcessInfo.processInfo.hostName)"

    @Flag(name: .long, help: "No progress on standard error.")
    var quiet = false

    @Argument(help: ArgumentHelp("The job spec (JSON); - reads standard input.", valueName: "job.json"))
    var job: String

    func run() throws {
        let document = try readJobDocument(job)
        let store = try database.open()
        let runner = JobRunner(store: store, workerID: workerID, paths: .trusted)
        let interrupter = Interrupter()
        let signals = SignalCancellation(interrupter: interrupter)
        defer { signals.stop() }
        let display = ProgressDisplay(enabled: !quiet)
        // Live copy jobs run on the relay engine, the others on the codec engine with their RTMP bytes on the relay
        // engine. A job with no RTMP input or output starts no event loop at all (an invalid one is refused either way).
        let spec = try? JobSpec.parse(document)
        let relay = spec.map { $0.input.isNetwork || $0.outputs.contains(where: \.isNetwork) } == false ? nil
            : RelayEngine(RelaySettings(environment: ProcessInfo.processInfo.environment))
        defer { relay?.shutdown() }
        let outcome = try runner.run(document: document, interrupter: interrupter, relay: relay) { spec, progress in
            display.show(spec: spec, progress: progress)
        }
        display.finish()
        switch outcome {
        case let .succeeded(result):
            let p = result.progress
            printError("sluice: succeeded: \(String(format: "%.2f", p.mediaTime)) s of media, \(p.videoFrames) video / \(p.audioFrames) audio frames, \(p.bytesOut) bytes out in \(String(format: "%.2f", p.elapsed)) s")
        case let .alreadySucceeded(record):
            printError("sluice: job \(record.id) already succeeded\(record.finishedAt.map { " at \(ISO8601DateFormatter().string(from: $0))" } ?? ""); not run again")
        case let .failed(failure), let .retrying(failure):
            printError("sluice: failed: \(failure.message)")
        case let .rejected(error):
            printError("sluice: invalid job\(error.id.map { " '\($0)'" } ?? ""):")
            for problem in error.problems { printError("  - \(problem)") }
        case .cancelled:
            printError("sluice: cancelled")
        }
        if outcome.exitCode != 0 { throw ExitCode(outcome.exitCode) }
    }
}

/// SIGINT/SIGTERM cancel the running job cleanly (outputs finished, state `cancelled`).
/// `@unchecked Sendable`: `sources` is written once in `init` and only cancelled afterwards (Dispatch's sources are
/// thread-safe but not marked `Sendable`).
final class SignalCancellation: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]

    init(interrupter: Interrupter) {
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { interrupter.cancel() }
            source.resume()
            return source
        }
    }

    func stop() { for source in sources { source.cancel() } }
}

/// Progress on standard error: one updating line on a terminal, a plain line every few seconds otherwise.
final class ProgressDisplay: Sendable {
    private let enabled: Bool
    private let isTerminal = isatty(STDERR_FILENO) == 1
    /// When the last plain line was written, and whether an updating line is on the terminal (the job's progress
    /// thread shows, the command's thread finishes).
    private let written = NIOLockedValueBox((lastPlain: Date.distantPast, line: false))
    /// Seconds between plain lines when standard error is not a terminal.
    static let plainInterval = 5.0

    init(enabled: Bool) { self.enabled = enabled }

    func show(spec: JobSpec, progress: MediaJobProgress) {
        guard enabled else { return }
        let line = "\(spec.id)  time \(String(format: "%.2f", progress.mediaTime))s"
            + "  speed \(String(format: "%.1f", progress.speed))x  frames \(progress.videoFrames)"
            + "  in \(ProgressDisplay.bytes(progress.bytesIn))  out \(ProgressDisplay.bytes(progress.bytesOut))"
        written.withLockedValue { written in
            if isTerminal {
                FileHandle.standardError.write(Data(("\r\u{1B}[K" + line).utf8))
                written.line = true
            } else if Date().timeIntervalSince(written.lastPlain) >= ProgressDisplay.plainInterval {
                written.lastPlain = Date()
                printError(line)
            }
        }
    }

    func finish() {
        if written.withLockedValue({ $0.line }) { FileHandle.standardError.write(Data("\n".utf8)) }
    }

    static func bytes(_ count: Int64) -> String {
        let value = Double(count)
        let kib = 1024.0, mib = kib * 1024, gib = mib * 1024
        if value >= gib { return String(format: "%.2f GiB", value / gib) }
        if value >= mib { return String(format: "%.1f MiB", value / mib) }
        if value >= kib { return String(format: "%.1f KiB", value / kib) }
        return "\(count) B"
    }
}
