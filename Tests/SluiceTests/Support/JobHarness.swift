import Foundation
import JobStore
import LiveRelay
import MediaEngine
@testable import Sluice
import MediaJob
import JobDocument

/// Runs jobs in-process against a real SQLite store in a scratch folder, as `sluice run` does: live copy jobs on
/// the LiveRelay engine (one for the whole test process), everything else on `CodecJob`.
struct JobHarness {
    /// Trusts the test CA of the RTMPS terminator (scripts/lib/test-services.d), as an operator's
    /// `SLUICE_RTMPS_CA_FILE` would.
    static let liveEngine = RelayEngine(RelaySettings(rtmpsCAFile: ProcessInfo.processInfo.environment["SLUICE_TEST_RTMPS_CA"]))

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
        try runner.run(document: Data(document.jsonText().utf8), relay: JobHarness.liveEngine)
    }

    func run(json: String) throws -> JobOutcome {
        try runner.run(document: Data(json.utf8), relay: JobHarness.liveEngine)
    }
}

extension JobOutcome {
    var succeeded: MediaJobResult? {
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
