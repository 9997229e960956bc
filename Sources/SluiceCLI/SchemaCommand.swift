import ArgumentParser
import Sluice
import JobDocument

/// `sluice schema`: the JSON Schema of job spec v1, generated from the limits the validator enforces.
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the JSON Schema of a job document (regenerate jobs/schema.json with `sluice schema > jobs/schema.json`)."
    )

    func run() {
        print(JobSchema.text, terminator: "")
    }
}
