// Outputs on the fly (docs/ARCHITECTURE.md §4, §8): `sluice jobs outputs add|remove JOB URL`.
import ArgumentParser
import Foundation
import JobQueue
import Sluice
import JobDocument

extension JobsCommand {
    struct Outputs: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "outputs",
            abstract: "Add an RTMP output to a running job, or remove one, without touching its other outputs.",
            discussion: """
                The worker that holds the job applies the edit and answers. An added output starts at the current \
                group of pictures, like a destination that connects late; a removed one is closed cleanly. The edit is \
                recorded (job_outputs, a job.output_added / job.output_removed event) and kept by a retry or a take-over. \
                Only live copy jobs (those on the live relay) take edits; only rtmp://, rtmps:// and srt:// outputs are edited.
                Exit status: 0 applied; 1 refused by the worker, the job is not running on any worker, or no answer; \
                2 an invalid URL.
                """,
            subcommands: [Add.self, Remove.self])
    }
}

extension JobsCommand.Outputs {
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add an rtmp:// or rtmps:// output to a running job.")
        @OptionGroup var edit: OutputEditOptions

        func run() throws { try edit.send(.add) }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove an RTMP output (its URL exactly as in the job) from a running job.")
        @OptionGroup var edit: OutputEditOptions

        func run() throws { try edit.send(.remove) }
    }
}

struct OutputEditOptions: ParsableArguments {
    @OptionGroup var broker: BrokerOptions
    @Option(name: .customLong("timeout-s"), help: ArgumentHelp("Seconds to wait for the worker's answer (1–60).", valueName: "s"))
    var timeoutSeconds: Double = 5
    @Argument(help: "The job id.") var id: String
    @Argument(help: "The output URL, rtmp://HOST[:PORT]/APP/KEY, rtmps://… or srt://HOST:PORT?streamid=… (never printed: the key is masked).") var url: String

    func validate() throws {
        guard (1...60).contains(timeoutSeconds) else { throw ValidationError("--timeout-s must be 1 to 60, got \(timeoutSeconds)") }
    }

    func send(_ action: OutputEditRequest.Action) throws {
        guard OutputEdit.isNetwork(url) else {
            // Not echoed: outside rtmp(s) and srt the redaction keeps the path.
            printError("sluice: the output URL is not rtmp://, rtmps:// or srt://: only RTMP and SRT outputs are edited on a running job")
            throw ExitCode(2)
        }
        let requester: ControlRequester
        do {
            var configuration = try broker.configuration()
            configuration.connectionName = "sluice-cli"
            requester = try ControlRequester(configuration: configuration)
        } catch let error as ValidationError {
            throw error
        } catch {
            printError("sluice: cannot reach the broker: \(error)")
            throw ExitCode(1)
        }
        let reply: OutputEditReply?
        do {
            guard try requester.leaseHolderClass(jobID: id) != nil else {
                printError("sluice: job \(id) is not running on any worker (no worker holds its lease); nothing changed")
                throw ExitCode(1)
            }
            let request = OutputEditRequest(action: action, jobID: id, url: url)
            reply = try requester.send(request, timeout: .milliseconds(Int64(timeoutSeconds * 1000)))
        } catch let error as ExitCode {
            throw error
        } catch {
            printError("sluice: the output edit of job \(id) was not sent: \(error)")
            throw ExitCode(1)
        }
        guard let reply else {
            printError("sluice: no answer from the worker holding job \(id) within \(JobLimits.format(timeoutSeconds)) s "
                       + "(it may be older than output edits, or busy); check `sluice jobs show \(id)`")
            throw ExitCode(1)
        }
        guard reply.ok else {
            printError("sluice: refused: \(reply.message)")
            throw ExitCode(1)
        }
        print(reply.message)
    }
}
