import JobDocument
import Foundation
import SluiceTestSupport
import Testing
import SRTTransport

/// Callers of one process share one UDP socket: libsrt then runs one pair of threads (SRT:SndQ, SRT:RcvQ) for all
/// of them instead of a pair per caller. Counts this process's threads, so it runs alone in its process (scripts/test
/// runs each suite of this target as a process of its own).
@Suite(.serialized)
struct SRTMultiplexerTests {
    static let callers = 50

    @Test("fifty callers to one listener add a handful of threads, not two per caller", .timeLimit(.minutes(2)))
    func callersShareTheMultiplexer() async throws {
        let accepted = Inbox<SRTConnection>()
        let listener = try SRTListener(host: "127.0.0.1", port: 0, admit: { _, _ in .accept(passphrase: nil) },
                                       onAccept: { connection, _ in accepted.append(connection) }, onRefused: { _, _ in })
        var connections: [SRTConnection] = []
        defer {
            for connection in connections + accepted.all { connection.close() }
            listener.close()
        }
        let url = SRTURL(host: "127.0.0.1", port: listener.boundPort, streamID: "publish:live/many")
        connections.append(try await SRTTestPeers.connect(url, timeout: .seconds(10)).get())
        let withOne = SRTTestPeers.threadCount()
        let namesWithOne = SRTTestPeers.threadNames()
        for _ in 1..<Self.callers {
            connections.append(try await SRTTestPeers.connect(url, timeout: .seconds(10)).get())
        }
        #expect(await eventually(timeout: .seconds(20)) { accepted.count == Self.callers })
        let withAll = SRTTestPeers.threadCount()
        let names = SRTTestPeers.threadNames()
        #expect(withAll - withOne < Self.callers / 5, "threads with 1 caller: \(withOne), with \(Self.callers): \(withAll): \(names)")
        #expect(names["sluice-srt"] == 1, "\(names)")
        // No multiplexer (a receive and a send thread) was added for callers 2 to 50.
        let multiplexerThreads = { (names: [String: Int]) in names.filter { $0.key.hasPrefix("SRT:") && $0.key.contains("Q:") }.values.reduce(0, +) }
        #expect(multiplexerThreads(names) == multiplexerThreads(namesWithOne), "with 1: \(namesWithOne), with all: \(names)")
        // One UDP socket: every caller is bound to the same local port.
        let localAddresses = Set(try connections.map { try $0.localAddress() })
        #expect(localAddresses.count == 1, "\(localAddresses)")
    }
}
