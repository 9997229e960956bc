import Foundation
import Testing

/// The private broker `scripts/test` starts (SLUICE_TEST_AMQP_URL, SLUICE_TEST_RABBITMQCTL), for the queue and worker
/// suites alike. Every rabbitmqctl call boots an Erlang VM (seconds on a loaded machine), so it runs off the cooperative
/// pool (`Subprocess.run`): parallel tests waiting on it never starve the others of threads.
public enum PrivateBroker {
    public static let url = ProcessInfo.processInfo.environment["SLUICE_TEST_AMQP_URL"]
    public static let rabbitmqctl = ProcessInfo.processInfo.environment["SLUICE_TEST_RABBITMQCTL"]
    /// Under CI the suites run regardless, so a missing broker fails them instead of skipping them.
    public static var isAvailable: Bool { (url != nil && rabbitmqctl != nil) || ProcessInfo.processInfo.environment["CI"] == "true" }
    public static let unavailableReason: Comment =
        "SLUICE_TEST_AMQP_URL and SLUICE_TEST_RABBITMQCTL are unset: scripts/test sets them after starting a broker"

    /// This test process's name for a test's vhost: `name` and the process id. The broker outlives a test process
    /// (CI's ThreadSanitizer stage runs the suites again on the broker its tests stage used), and a vhost deleted and
    /// made again at once can stay "down" for good (`vhost 'jq-priority' is down`: its old message store was still
    /// stopping as the new one started). A run's own names are never an earlier run's.
    public static func vhost(_ name: String) -> String { "\(name)-p\(getpid())" }

    /// Runs the node's rabbitmqctl; throws with its output when it fails.
    @discardableResult
    public static func ctl(_ arguments: [String]) async throws -> String {
        let result = try await Subprocess.run(try #require(rabbitmqctl), arguments)
        guard result.status == 0 else { throw Subprocess.Failure(command: "rabbitmqctl \(arguments.first ?? "")", output: result.output) }
        return result.output
    }

    /// Ready + unacked messages per queue of a vhost (`column` "messages_ready": the ready ones alone).
    public static func messageCounts(vhost: String, column: String = "messages") async throws -> [String: Int] {
        let output = try await ctl(["list_queues", "-p", vhost, "--quiet", "--no-table-headers", "name", column])
        var counts: [String: Int] = [:]
        for line in output.split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == "\t" || $0 == " " })
            if fields.count == 2, let count = Int(fields[1]) { counts[String(fields[0])] = count }
        }
        return counts
    }
}
