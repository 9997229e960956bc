import Foundation
import JobStore
import MediaEngine
@testable import Sluice

/// Runs jobs in-process against a real SQLite store in a scratch folder.
struct JobHarness {
    let folder: String
    let store: JobStore
    let runner: JobRunner

    init(_ name: String) throws {
        folder = Fixtures.scratch(name)
        store = try JobStore(path: (folder as NSString).appendingPathComponent("jobs.sqlite"))
        runner = JobRunner(store: store, workerID: "test-worker", paths: .trusted, storeInterval: 0.2)
    }

    func path(_ name: String) -> String { (folder as NSString).appendingPathComponent(name) }

    /// Runs a job document given as a JSON value.
    func run(_ document: JSONValue) throws -> JobOutcome {
        try runner.run(document: Data(document.jsonText().utf8))
    }

    func run(json: String) throws -> JobOutcome {
        try runner.run(document: Data(json.utf8))
    }
}

extension JobOutcome {
    var succeeded: PipelineResult? {
        if case let .succeeded(result) = self { return result }
        return nil
    }
    var failureMessage: String? {
        if case let .failed(failure) = self { return failure.message }
        return nil
    }
    var rejection: JobSpecError? {
        if case let .rejected(error) = self { return error }
        return nil
    }
}
