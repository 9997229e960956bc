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
    @OptionGroup var service: ServiceOptions

    @Option(name: .customLong("http"), help: ArgumentHelp("Serve /healthz and the admin page on HOST:PORT; off when empty (env SLUICE_HTTP).", valueName: "host:port"))
    var http: String = ProcessInfo.processInfo.environment["SLUICE_HTTP"] ?? ""

    func validate() throws {
        guard http.isEmpty || ListenAddress(parsing: http) != nil else { throw ValidationError("--http must be HOST:PORT, got \(http)") }
    }

    func run() throws {
        let log = service.startLogging(as: "ledger")
        var brokerConfiguration = try broker.configuration()
        brokerConfiguration.consumedQueue = .ledger
        brokerConfiguration.consumesControl = false
        // Events are small and independent: a deeper prefetch keeps the ledger up with a large fleet.
        brokerConfiguration.prefetch = 50
        brokerConfiguration.heartbeatSeconds = service.heartbeatSeconds
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
