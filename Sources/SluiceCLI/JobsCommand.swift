import ArgumentParser
import Foundation
import JobStore
import Sluice
import JobDocument

struct JobsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jobs",
        abstract: "Inspect the jobs recorded in the database, cancel or retry them, and edit a running job's outputs.",
        subcommands: [List.self, Show.self, Events.self, Cancel.self, Retry.self, Outputs.self]
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List jobs, newest first.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: ArgumentHelp("Only jobs in this state (\(JobState.allCases.map(\.rawValue).joined(separator: ", "))).", valueName: "state"))
        var state: String?
        @Option(help: ArgumentHelp("Only jobs created at or after this ISO-8601 time.", valueName: "time"))
        var since: String?
        @Option(help: "At most this many jobs.") var limit = 100
        @Flag(help: "JSON instead of a table.") var json = false

        func run() throws {
            var filter: JobState?
            if let state {
                guard let parsed = JobState(rawValue: state) else {
                    throw ValidationError("unknown state '\(state)'; one of \(JobState.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                filter = parsed
            }
            var sinceDate: Date?
            if let since {
                guard let parsed = JobsFormatting.parseTime(since) else { throw ValidationError("--since takes an ISO-8601 time such as 2026-11-21T05:00:00Z") }
                sinceDate = parsed
            }
            let store = try database.open()
            let jobs = try store.jobs(state: filter, since: sinceDate, limit: limit)
            let outputs = try Dictionary(uniqueKeysWithValues: jobs.map { ($0.id, try store.outputs(jobID: $0.id)) })
            if json {
                let rows = jobs.map { JobsFormatting.summary($0, outputs: outputs[$0.id] ?? []) }
                print(JSONValue.array(rows).jsonText(pretty: true))
                return
            }
            print(JobsFormatting.table(jobs, outputs: outputs))
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "One job: spec (secrets redacted), outputs, progress, events.")
        @OptionGroup var database: DatabaseOptions
        @Flag(help: "JSON instead of text.") var json = false
        @Argument(help: "The job id.") var id: String

        func run() throws {
            let store = try database.open()
            guard let job = try store.job(id: id) else {
                printError("sluice: no job '\(id)' in \(database.db)")
                throw ExitCode(1)
            }
            let outputs = try store.outputs(jobID: id)
            let events = try store.events(jobID: id)
            if json {
                var row = JobsFormatting.summary(job, outputs: outputs)
                if case var .object(fields) = row {
                    fields["spec"] = job.specRedacted.flatMap { try? JSONValue.parse(Data($0.utf8)) } ?? .null
                    fields["events"] = .array(events.map(JobsFormatting.event))
                    row = .object(fields)
                }
                print(row.jsonText(pretty: true))
                return
            }
            print(JobsFormatting.detail(job, outputs: outputs, events: events, segments: try store.segments(jobID: job.id)))
        }
    }

    struct Events: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "events", abstract: "A job's events, oldest first.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The job id.") var id: String

        func run() throws {
            let store = try database.open()
            guard try store.job(id: id) != nil else {
                printError("sluice: no job '\(id)' in \(database.db)")
                throw ExitCode(1)
            }
            for event in try store.events(jobID: id) { print(JobsFormatting.eventLine(event)) }
        }
    }
}
