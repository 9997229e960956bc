import ArgumentParser
import Foundation
import JobQueue
import Sluice
import SluiceHTTP

/// What `sluice worker` and `sluice ledger` share around their main loop: the broker's state for the HTTP side,
/// starting the admin server, and turning SIGINT/SIGTERM into a graceful shutdown.
enum ServiceLoop {
    /// The broker connection as `/metrics` and `/healthz` read it.
    static func status(of connection: BrokerConnection) -> BrokerStatus {
        BrokerStatus(connected: connection.isConnected, generation: connection.generation,
                     channelErrors: connection.channelErrors, leasesHeld: connection.leasesHeld)
    }

    /// Starts the admin server and logs where it listens; a failure to bind exits 1 with the reason.
    static func start(_ admin: AdminServer, serving what: String, log: WorkerLog) throws -> AdminServer {
        do {
            let bound = try waitFor { try await admin.start() }
            log("http: serving \(what) on http://\(bound)/")
        } catch {
            printError("sluice: \(error)")
            throw ExitCode(1)
        }
        return admin
    }

    /// Runs `body` until it returns; SIGINT and SIGTERM call `shutdown` (the loop then drains and returns).
    /// - Parameter stopWithin: how long after the first signal the process may still run before `StopWatchdog` ends
    ///   it; nil arms no watchdog.
    static func run(shutdown: @escaping @Sendable () -> Void, server: AdminServer?, stopWithin: Duration? = nil,
                    _ body: @escaping @Sendable () async -> Void) throws {
        let watchdog = stopWithin.map(StopWatchdog.init(limit:))
        let signals = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                watchdog?.arm()
                shutdown()
            }
            source.resume()
            return source
        }
        defer { for source in signals { source.cancel() } }
        try waitFor {
            await body()
            await server?.stop()
        }
    }
}

/// The options `sluice worker` and `sluice ledger` share: how they log, and their broker connection's heartbeat.
struct ServiceOptions: ParsableArguments {
    @Option(name: .customLong("log-format"), help: ArgumentHelp("text or json (env SLUICE_LOG_FORMAT).", valueName: "format"))
    var logFormat: String = ProcessInfo.processInfo.environment["SLUICE_LOG_FORMAT"] ?? "text"

    @Option(name: .customLong("heartbeat-s"), help: ArgumentHelp("AMQP heartbeat in seconds (env SLUICE_HEARTBEAT_S).", valueName: "s"))
    var heartbeatSeconds: Int = Int(ProcessInfo.processInfo.environment["SLUICE_HEARTBEAT_S"] ?? "") ?? 10

    func validate() throws {
        guard WorkerLog.Format(rawValue: logFormat) != nil else { throw ValidationError("--log-format is text or json") }
        guard (0...3600).contains(heartbeatSeconds) else { throw ValidationError("--heartbeat-s must be 0…3600") }
    }

    /// Sets up the process's logging in the chosen format; the log names `workerID` on every line.
    func startLogging(as workerID: String) -> WorkerLog {
        let format = WorkerLog.Format(rawValue: logFormat) ?? .text
        WorkerLog.bootstrapLoggingSystem(format: format)
        return WorkerLog(format: format, workerID: workerID)
    }
}
