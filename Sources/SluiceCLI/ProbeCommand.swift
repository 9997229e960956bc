import ArgumentParser
import Foundation
import LiveRelay
import MediaEngine
import Sluice
import MediaJob
import JobDocument

struct ProbeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "Print an input's streams, with H.264 and AAC fields parsed by Sluice itself."
    )

    @Flag(help: "JSON instead of text.") var json = false
    @Option(help: "Seconds to wait for a network input.") var timeout: Double = 10
    @Argument(help: "A path, file:// URL, or rtmp:// URL.") var url: String

    func run() throws {
        let name = Redaction.redact(url: url)
        let isNetwork = url.lowercased().hasPrefix("rtmp")
        let target = isNetwork ? url : "file:" + (url.hasPrefix("file://") ? String(url.dropFirst(7)) : url)
        do {
            let report: ProbeReport
            if isNetwork {
                // Every RTMP byte goes through the relay engine, here too.
                let engine = RelayEngine(RelaySettings(environment: ProcessInfo.processInfo.environment))
                defer { engine.shutdown() }
                var options = MediaJobOptions(inputURL: url, inputName: name)
                options.liveInput = true
                options.inputTimeout = timeout
                report = try MediaProbe.probe(live: options, transport: engine)
            } else {
                report = try MediaProbe.probe(url: target, timeout: timeout)
            }
            print(json ? ProbeFormatting.json(report).jsonText(pretty: true) : ProbeFormatting.text(report, name: name))
        } catch let error as FFmpegError {
            printError("sluice: cannot probe \(name): \(error.message) (\(error.function))")
            throw ExitCode(1)
        } catch let error as MediaJobError {
            printError("sluice: cannot probe \(name): \(error)")
            throw ExitCode(1)
        }
    }
}
