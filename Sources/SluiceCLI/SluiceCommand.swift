import ArgumentParser
import Foundation

@main
struct SluiceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sluice",
        abstract: "A queue-driven H.264/AAC restreaming and transcoding worker.",
        subcommands: [RunCommand.self, ProbeCommand.self, JobsCommand.self]
    )
}

/// `--db`, shared by every command that opens the job store (environment: SLUICE_DB).
struct DatabaseOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("SQLite database of job records (env SLUICE_DB).", valueName: "path"))
    var db: String = ProcessInfo.processInfo.environment["SLUICE_DB"] ?? "sluice.sqlite"
}

/// Writes a line to standard error.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
