import ArgumentParser
import Foundation
import JobQueue
import JobStore
import Sluice
import SluiceHTTP

struct LedgerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ledger",
        abstract: "Consume every worker's job events into one SQLite database (the fleet's view).",
        discussion: """
            Declares the durable queue sluice.ledger bound to sluice.events (job.#) and applies each event once \
            (by its event_id) to --db, which has the workers' schema: `sluice jobs list --db` and the admin page \
            (--http) then show every job of every worker. SIGTERM/SIGINT stop it after the event in hand, within 5 s \
            whatever the broker does (a stop that overruns exits with status 70). Run one ledger per broker (several \
            would split the events between them).
            """
    )

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var broker: BrokerOptions

    @Option(name: .customLong("log-format"), help: ArgumentHelp("text or json (env SLUICE_LOG_FORMAT).", valueName: "format"))
    var logFormat: String = ProcessInfo.processInfo.environment["SLUICE_LOG_FORMAT"] ?? "text"

    @Option(name: .customLong("http"), help: ArgumentHelp("Serve /healthz and the admin page on HOST:PORT; off when empty (env SLUICE_HTTP).", valueName: "host:port"))
    var http: String = ProcessInfo.processInfo.environment["SLUICE_HTTP"] ?? ""

    @Option(name: .customLong("heartbeat-s"), help: ArgumentHelp("AMQP heartbeat in seconds (env SLUICE_HEARTBEAT_S).", valueName: "s"))
    var heartbeatSeconds: Int = Int(ProcessInfo.processInfo.environment["SLUICE_HEARTBEAT_S"] ?? "") ?? 10

    func validate() throws {
        guard WorkerLog.Format(rawValue: logFormat) != nil else { throw ValidationError("--log-format is text or json") }
        guard http.isEmpty || ListenAddress(parsing: http) != nil else { throw ValidationError("--http must be HOST:PORT, got \(http)") }
        guard (0...3600).contains(heartbeatSeconds) else { throw ValidationError("--heartbeat-s must be 0…3600") }
    }

    func run() throws {
        let format = WorkerLog.Format(rawValue: logFormat) ?? .text
        WorkerLog.bootstrapLoggingSystem(format: format)
        let log = WorkerLog(format: format, workerID: "ledger")
        var brokerConfiguration = try broker.configuration()
        brokerConfiguration.consumedQueue = .ledger
        brokerConfiguration.consumesControl = false
        // Events are small and independent: a deeper prefetch keeps the ledger up with a large fleet.
        brokerConfiguration.prefetch = 50
        brokerConfiguration.heartbeatSeconds = heartbeatSeconds
        brokerConfiguration.connectionName = "sluice-ledger"
        let connection = BrokerConnection(configuration: brokerConfiguration, logger: { log($0) })
        let store = try database.open()
        let ledger = Ledger(broker: connection, store: store, log: log)
        var server: AdminServer?
        if let address = ListenAddress(parsing: http) {
            server = try ServiceLoop.start(
                AdminServer(address: address, store: store, registry: MetricsRegistry(), metrics: nil,
                            brokerStatus: { ServiceLoop.status(of: connection) }, logger: log.logger),
                serving: "/healthz and the admin page of the ledger", log: log)
        }
        // The ledger stops within its own bound; the watchdog is for a bound that did not hold.
        let stopWithin = Ledger.stopOverrun + WorkerCommand.watchdogMargin
        try ServiceLoop.run(shutdown: { ledger.shutdown() }, server: server, stopWithin: stopWithin) { await ledger.run() }
    }
}
