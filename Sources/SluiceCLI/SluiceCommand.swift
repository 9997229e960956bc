import ArgumentParser
import Foundation
import JobStore
import Sluice
import JobDocument

@main
struct SluiceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sluice",
        abstract: "A queue-driven H.264/AAC restreaming and transcoding worker.",
        subcommands: [RunCommand.self, ProbeCommand.self, JobsCommand.self, WorkerCommand.self, EnqueueCommand.self, LedgerCommand.self, SchemaCommand.self, LibrariesCommand.self]
    )
}

/// `--db`, shared by every command that opens the job store (environment: SLUICE_DB).
struct DatabaseOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("SQLite database of job records (env SLUICE_DB).", valueName: "path"))
    var db: String = ProcessInfo.processInfo.environment["SLUICE_DB"] ?? "sluice.sqlite"

    /// Opens the store, creating its folder first, with the secrets keyring the environment configures
    /// (SLUICE_SECRETS_KEY or SLUICE_SECRETS_KEY_FILE); a failure exits 1 with the reason.
    func open() throws -> JobStore {
        // URL's, not NSString's: on Linux NSString traps on a one-letter name (`--db j`).
        let folder = db.contains("/") ? URL(fileURLWithPath: db).deletingLastPathComponent().path : ""
        do {
            let secrets = try SecretKeyring.configured(by: ProcessInfo.processInfo.environment)
            if !folder.isEmpty { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
            return try JobStore(path: db, secrets: secrets)
        } catch {
            printError("sluice: \(error)")
            throw ExitCode(1)
        }
    }
}

/// A job document from a file, or standard input for `-`; unreadable or larger than a job document may be
/// exits 2 (an invalid job) with the reason. Reading stops one byte past the limit, whatever the file's size.
func readJobDocument(_ path: String) throws -> Data {
    let data: Data
    do {
        let handle = path == "-" ? FileHandle.standardInput : try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        data = try handle.read(upToCount: JobLimits.documentBytes + 1) ?? Data()
    } catch {
        printError("sluice: cannot read \(path): \((error as NSError).localizedDescription)")
        throw ExitCode(2)
    }
    guard data.count <= JobLimits.documentBytes else {
        printError("sluice: invalid job: \(path) is larger than \(JobLimits.documentBytes) bytes, the most a job document may be")
        throw ExitCode(2)
    }
    return data
}

/// Writes a line to standard error.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
