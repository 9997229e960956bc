import ArgumentParser
import Foundation
import JobQueue
import JobStore
import Sluice
import JobDocument

struct EnqueueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enqueue",
        abstract: "Validate a job here, then publish it to sluice.jobs and wait for the broker's confirm.",
        discussion: "Exit status: 0 published, 1 the broker did not take it, 2 invalid job."
    )

    @OptionGroup var broker: BrokerOptions

    @Option(help: ArgumentHelp("Queue priority 0…9 (default: the spec's priority).", valueName: "n"))
    var priority: Int?

    @Argument(help: ArgumentHelp("The job spec (JSON); - reads standard input.", valueName: "job.json"))
    var job: String

    func validate() throws {
        if let priority, !JobLimits.priority.wholeRange.contains(priority) { throw ValidationError("--priority must be \(JobLimits.priority.rangeText), got \(priority)") }
    }

    func run() throws {
        let document = try readJobDocument(job)
        let spec: JobSpec
        do {
            spec = try JobSpec.parse(document)
        } catch {
            printError("sluice: invalid job\(error.id.map { " '\($0)'" } ?? ""):")
            for problem in error.problems { printError("  - \(problem)") }
            throw ExitCode(2)
        }
        try publish(Array(document), id: spec.id, priority: UInt8(priority ?? spec.priority), using: broker)
        print(spec.id)
    }
}

/// Publishes a job document with a confirm; exits 1 with the reason when the broker does not take it.
func publish(_ body: [UInt8], id: String, priority: UInt8, using options: BrokerOptions) throws {
    let connection = try options.publisher()
    connection.start()
    defer { connection.close() }
    do {
        try waitFor { try await connection.publishJob(body, priority: priority) }
    } catch {
        printError("sluice: job \(id) was not enqueued: \(error)")
        throw ExitCode(1)
    }
}

extension JobsCommand {
    struct Cancel: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "cancel",
            abstract: "Ask the workers to cancel a job (running: stopped cleanly; still queued: skipped when it arrives).")
        @OptionGroup var broker: BrokerOptions
        @Argument(help: "The job id.") var id: String

        func run() throws {
            let connection = try broker.publisher()
            connection.start()
            defer { connection.close() }
            let message = ControlMessage.cancel(jobID: id)
            do {
                try waitFor { try await connection.publishControl(message) }
            } catch {
                printError("sluice: the cancel for \(id) was not sent: \(error)")
                throw ExitCode(1)
            }
            printError("sluice: cancel sent for \(id)")
        }
    }

    struct Retry: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "retry",
            abstract: "Enqueue a failed or cancelled job again from its stored spec, as a new attempt.")
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var broker: BrokerOptions
        @Option(help: ArgumentHelp("Queue priority 0…9 (default: the job's priority).", valueName: "n"))
        var priority: Int?
        @Argument(help: "The job id.") var id: String

        func validate() throws {
            if let priority, !JobLimits.priority.wholeRange.contains(priority) { throw ValidationError("--priority must be \(JobLimits.priority.rangeText), got \(priority)") }
        }

        func run() throws {
            let store = try database.open()
            guard let job = try store.job(id: id) else {
                printError("sluice: no job '\(id)' in \(database.db)")
                throw ExitCode(1)
            }
            guard job.state == .failed || job.state == .cancelled else {
                let hint = job.state == .rejected ? " (its spec is invalid: fix it and use sluice enqueue)" : ""
                printError("sluice: job \(id) is \(job.state.rawValue); only failed or cancelled jobs are retried\(hint)")
                throw ExitCode(1)
            }
            let spec: String
            do {
                spec = try store.runnableSpec(id: id)
            } catch {
                printError("sluice: cannot retry: \(error)")
                throw ExitCode(1)
            }
            try publish(Array(spec.utf8), id: id, priority: UInt8(priority ?? job.priority ?? 0), using: broker)
            printError("sluice: job \(id) enqueued again (it was \(job.state.rawValue) after \(job.attempts) attempt\(job.attempts == 1 ? "" : "s"))")
        }
    }
}
