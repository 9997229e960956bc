import Foundation
import Testing

/// `sluice worker --http` refuses what it cannot serve before it takes any job.
@Suite struct WorkerHTTPOptionTests {
    @Test("--http without a port and a negative --min-free-mb (or SLUICE_MIN_FREE_MB) are usage errors; a port already taken exits 1 naming the address")
    func refusals() throws {
        let folder = Fixtures.scratch("http-option")
        let common = ["worker", "--db", (folder as NSString).appendingPathComponent("jobs.sqlite"),
                      "--amqp-url", "amqp://guest:guest@127.0.0.1:1/%2F", "--input-root", folder, "--output-root", folder]
        let usage = try Command.run(Command.sluiceBinary, common + ["--http", "127.0.0.1"], check: false)
        #expect(usage.status == 64)
        #expect(usage.stderr.contains("--http must be HOST:PORT"), "\(usage.stderr)")
        let floor = try Command.run(Command.sluiceBinary, common + ["--min-free-mb=-1"], check: false)
        #expect(floor.status == 64)
        #expect(floor.stderr.contains("--min-free-mb must be 0…"), "\(floor.stderr)")
        let floorFromEnvironment = try Command.run(Command.sluiceBinary, common, environment: ["SLUICE_MIN_FREE_MB": "-5"], check: false)
        #expect(floorFromEnvironment.status == 64)
        #expect(floorFromEnvironment.stderr.contains("got -5"), "\(floorFromEnvironment.stderr)")

        // Another process listens on the port first.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        holder.arguments = ["-c", """
            import socket, time
            s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen()
            print(s.getsockname()[1], flush=True); time.sleep(30)
            """]
        let out = Pipe()
        holder.standardOutput = out
        try holder.run()
        defer { holder.terminate() }
        var portText = ""
        while !portText.hasSuffix("\n") {
            let byte = out.fileHandleForReading.readData(ofLength: 1)
            guard !byte.isEmpty else { break }
            portText += String(decoding: byte, as: UTF8.self)
        }
        let port = try #require(Int(portText.trimmingCharacters(in: .whitespacesAndNewlines)))
        let taken = try Command.run(Command.sluiceBinary, common + ["--http", "127.0.0.1:\(port)"], check: false)
        #expect(taken.status == 1)
        #expect(taken.stderr.contains("cannot serve HTTP on 127.0.0.1:\(port)"), "\(taken.stderr)")
    }
}
