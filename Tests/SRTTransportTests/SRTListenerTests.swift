import JobDocument
import Foundation
import SluiceTestSupport
import Synchronization
import Testing
import SRTTransport

/// Our listener and our caller on loopback: data both ways, and every way a handshake is refused, as the caller and
/// the listener's owner each learn it.
@Suite(.serialized)
struct SRTListenerTests {
    static let passphrase = "listener-passphrase-1"
    static let resource = "live/k"

    /// A listener that admits publishers of `live/k` with the passphrase, one at a time, and records everything.
    final class Ingest: Sendable {
        let listener: SRTListener
        let accepted = Inbox<SRTConnection>()
        let refused = Inbox<(peer: String, reason: String)>()
        let received = ByteSink()
        let closed = Inbox<SRTCloseReason>()
        private let publishing = PublisherSlot()
        /// The refusals `admit` decides, which take no slot.
        static let admitReasons: Set = ["malformed streamid", "the streamid names no waiting job", "the job already has a publisher"]

        init(passphrase: String? = SRTListenerTests.passphrase) throws {
            let publishing = publishing
            let (accepted, refused, received, closed) = (accepted, refused, received, closed)
            listener = try SRTListener(host: "127.0.0.1", port: 0, admit: { streamID, _ in
                guard let id = try? SRTStreamID(parsing: streamID) else {
                    return .refuse(reason: "malformed streamid", code: .badRequest)
                }
                guard id.resource == SRTListenerTests.resource, id.mode == .publish else {
                    return .refuse(reason: "the streamid names no waiting job", code: .notFound)
                }
                guard publishing.take() else { return .refuse(reason: "the job already has a publisher", code: .conflict) }
                return .accept(passphrase: passphrase)
            }, onAccept: { connection, _ in
                connection.start(receive: received.append, closed: closed.append)
                accepted.append(connection)
            }, onRefused: { peer, reason in
                // A publisher refused by libsrt after `admit` took the slot for it (a wrong passphrase) frees it.
                if !Self.admitReasons.contains(reason) { publishing.free() }
                refused.append((peer, reason))
            })
        }

        func url(streamID: String = "publish:\(SRTListenerTests.resource)", passphrase: String? = SRTListenerTests.passphrase) -> SRTURL {
            SRTURL(host: "127.0.0.1", port: listener.boundPort, streamID: streamID, passphrase: passphrase)
        }

        func closeAll() {
            for connection in accepted.all { connection.close() }
            listener.close()
        }
    }

    @Test("TS-sized messages arrive byte-exact both ways, and the counters show them")
    func dataBothWays() async throws {
        let ingest = try Ingest()
        defer { ingest.closeAll() }
        let caller = try await SRTTestPeers.connect(ingest.url()).get()
        defer { caller.close() }
        let callerReceived = ByteSink()
        caller.start(receive: callerReceived.append, closed: { _ in })
        #expect(await eventually(timeout: .seconds(10)) { ingest.accepted.count == 1 })
        let server = try #require(ingest.accepted.all.first)
        #expect(server.streamID == "publish:live/k")
        #expect(server.peerAddress.hasPrefix("127.0.0.1:"))
        #expect(caller.peerAddress == "127.0.0.1:\(ingest.listener.boundPort)")

        let up = SRTTestPeers.pattern(SRTConnection.messageSize * 400, seed: 1)
        // Not a whole number of messages: the last one is short.
        let down = SRTTestPeers.pattern(SRTConnection.messageSize * 300 + 500, seed: 2)
        try await SRTTestPeers.sendPaced(up, on: caller)
        try await SRTTestPeers.sendPaced(down, on: server)
        #expect(await eventually(timeout: .seconds(20)) { ingest.received.count >= up.count && callerReceived.count >= down.count })
        #expect(ingest.received.all == up)
        #expect(callerReceived.all == down)

        let sent = try caller.statistics()
        #expect(sent.packetsSent >= 400)
        #expect(sent.bytesSent >= UInt64(up.count))
        #expect(sent.packetsReceived >= 301)
        let serverCounters = try server.statistics()
        #expect(serverCounters.packetsReceived >= 400)
        #expect(serverCounters.bytesReceived >= UInt64(up.count))
        #expect(serverCounters.roundTripMilliseconds >= 0)
        #expect(ingest.refused.count == 0)
    }

    @Test("an IPv6 listener and caller carry data too")
    func ipv6() async throws {
        let received = ByteSink()
        let accepted = Inbox<SRTConnection>()
        let listener = try SRTListener(host: "::1", port: 0, admit: { _, _ in .accept(passphrase: nil) }, onAccept: { connection, _ in
            connection.start(receive: received.append, closed: { _ in })
            accepted.append(connection)
        }, onRefused: { _, _ in })
        defer {
            for connection in accepted.all { connection.close() }
            listener.close()
        }
        let caller = try await SRTTestPeers.connect(try SRTURL(parsing: "srt://[::1]:\(listener.boundPort)?streamid=publish:live/k")).get()
        defer { caller.close() }
        #expect(caller.peerAddress == "[::1]:\(listener.boundPort)")
        let bytes = SRTTestPeers.pattern(SRTConnection.messageSize * 20, seed: 6)
        try await SRTTestPeers.sendPaced(bytes, on: caller)
        #expect(await eventually(timeout: .seconds(10)) { received.count >= bytes.count })
        #expect(received.all == bytes)
        #expect(accepted.all.first?.peerAddress.hasPrefix("[::1]:") == true)
    }

    @Test("a wrong passphrase is refused: the caller hears why and the listener reports it within a second")
    func wrongPassphrase() async throws {
        let logged = Inbox<SRTLogMessage>()
        SRTRuntime.setLogHandler { logged.append($0) }
        defer { SRTRuntime.setLogHandler(nil) }
        let ingest = try Ingest()
        defer { ingest.closeAll() }
        let result = await SRTTestPeers.connect(ingest.url(passphrase: "not-the-passphrase"))
        guard case let .failure(.rejected(code, reason)) = result else {
            Issue.record("connected with a wrong passphrase: \(result)")
            return
        }
        #expect(code == 10)
        #expect(reason == "wrong passphrase")
        #expect("\(SRTError.rejected(code: code, reason: reason))".hasPrefix("the peer refused: wrong passphrase"))
        #expect(await eventually(timeout: .seconds(5)) { ingest.refused.count == 1 })
        let report = try #require(ingest.refused.all.first)
        #expect(report.reason == "wrong passphrase")
        #expect(report.peer.hasPrefix("127.0.0.1:"))
        #expect(ingest.accepted.count == 0)
        // libsrt's lines about it go to the handler, and none carries a secret.
        #expect(await eventually(timeout: .seconds(5)) { logged.all.contains { $0.area == "newConnection" } })
        for line in logged.all {
            #expect(!line.text.contains("passphrase-1") && !line.text.contains("not-the-passphrase") && !line.text.contains("live/k"))
        }

        // The slot is free again: the right passphrase gets in.
        let caller = try await SRTTestPeers.connect(ingest.url()).get()
        defer { caller.close() }
        #expect(await eventually(timeout: .seconds(10)) { ingest.accepted.count == 1 })
    }

    /// From libsrt's log line, not when the listener forgets a pending handshake (30 s): 20 s leaves a loaded machine
    /// room and still tells the two apart.
    @Test("the listener reports a refused handshake from libsrt's line, not when it forgets the handshake", .timeLimit(.minutes(1)))
    func refusalIsPrompt() async throws {
        let ingest = try Ingest()
        defer { ingest.closeAll() }
        let start = ContinuousClock.now
        _ = await SRTTestPeers.connect(ingest.url(passphrase: "not-the-passphrase"))
        #expect(await eventually(timeout: .seconds(20)) { ingest.refused.count == 1 }, "reported after \(ContinuousClock.now - start)")
    }

    @Test("a caller without a passphrase is refused by a listener that has one, and the other way round")
    func encryptionMismatch() async throws {
        let encrypted = try Ingest()
        defer { encrypted.closeAll() }
        let plain = await SRTTestPeers.connect(encrypted.url(passphrase: nil))
        #expect(plain.failure?.rejectCode == 11)
        #expect(await eventually(timeout: .seconds(20)) { encrypted.refused.count == 1 })
        #expect(encrypted.refused.all.first?.reason == "encryption mismatch: one side has a passphrase and the other none")

        let open = try Ingest(passphrase: nil)
        defer { open.closeAll() }
        let secret = await SRTTestPeers.connect(open.url())
        #expect(secret.failure?.rejectCode == 11)
        #expect(await eventually(timeout: .seconds(20)) { open.refused.count == 1 })
    }

    @Test("a streamid naming no waiting job is refused with 1404 and reported")
    func unknownStreamID() async throws {
        let ingest = try Ingest()
        defer { ingest.closeAll() }
        let result = await SRTTestPeers.connect(ingest.url(streamID: "#!::r=live/other,m=publish"))
        #expect(result.failure?.rejectCode == SRTRefusalCode.notFound.rawValue)
        #expect(result.failure.map { "\($0)" } == "the peer refused: not found (reject code 1404)")
        #expect(await eventually(timeout: .seconds(5)) { ingest.refused.count == 1 })
        #expect(ingest.refused.all.first?.reason == "the streamid names no waiting job")
        let malformed = await SRTTestPeers.connect(ingest.url(streamID: "#!::m=publish"))
        #expect(malformed.failure?.rejectCode == SRTRefusalCode.badRequest.rawValue)
        #expect(await eventually(timeout: .seconds(5)) { ingest.refused.count == 2 })
        #expect(ingest.accepted.count == 0)
    }

    @Test("a second publisher is refused with 1409 while the first goes on")
    func secondPublisher() async throws {
        let ingest = try Ingest()
        defer { ingest.closeAll() }
        let first = try await SRTTestPeers.connect(ingest.url()).get()
        defer { first.close() }
        let second = await SRTTestPeers.connect(ingest.url(streamID: "#!::r=live/k,m=publish"))
        #expect(second.failure?.rejectCode == SRTRefusalCode.conflict.rawValue)
        #expect(await eventually(timeout: .seconds(5)) { ingest.refused.count == 1 })
        #expect(ingest.refused.all.first?.reason == "the job already has a publisher")
        let bytes = SRTTestPeers.pattern(SRTConnection.messageSize * 10, seed: 3)
        try await SRTTestPeers.sendPaced(bytes, on: first)
        #expect(await eventually(timeout: .seconds(10)) { ingest.received.count >= bytes.count })
        #expect(ingest.received.all == bytes)
    }

    @Test("the accepted side hears the caller close")
    func peerClose() async throws {
        let ingest = try Ingest()
        defer { ingest.closeAll() }
        let caller = try await SRTTestPeers.connect(ingest.url()).get()
        #expect(await eventually(timeout: .seconds(10)) { ingest.accepted.count == 1 })
        caller.close()
        #expect(await eventually(timeout: .seconds(15)) { ingest.closed.count == 1 })
        guard case .broken? = ingest.closed.all.first else {
            Issue.record("closed with \(ingest.closed.all)")
            return
        }
        // Once closed, sending fails rather than queueing.
        guard case .failed = try #require(ingest.accepted.all.first).send([0x47]) else {
            Issue.record("a broken connection took a send")
            return
        }
    }

    @Test("the accepted side hears a caller that vanished without a word (srt-live-transmit killed): broken, after the peer idle timeout")
    func peerVanishes() async throws {
        let ingest = try Ingest()
        defer { ingest.closeAll() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/srt-live-transmit")
        process.arguments = ["-q", "-a", "no", "-chunk", String(SRTConnection.messageSize), "file://con",
                             "srt://127.0.0.1:\(ingest.listener.boundPort)?streamid=publish:\(Self.resource)&passphrase=\(Self.passphrase)"]
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        #expect(await eventually(timeout: .seconds(15)) { ingest.accepted.count == 1 }, "srt-live-transmit never connected")
        // It throws away what it reads before it is connected: the bytes are written once it is.
        for _ in 0..<25 {
            input.fileHandleForWriting.write(Data(repeating: 0x47, count: SRTConnection.messageSize))
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(await eventually(timeout: .seconds(10)) { ingest.received.count > 0 }, "nothing arrived")
        // Gone without a shutdown: only the silence says so (libsrt's peer idle timeout, 5 s by default).
        kill(process.processIdentifier, SIGKILL)
        while process.isRunning { try await Task.sleep(for: .milliseconds(20)) }
        #expect(await eventually(timeout: .seconds(30)) { ingest.closed.count == 1 }, "the vanished caller was never noticed")
        guard case .broken? = ingest.closed.all.first else {
            Issue.record("closed with \(ingest.closed.all)")
            return
        }
    }

    @Test("a call nobody answers fails with the timeout; a bad URL fails without a socket")
    func connectFailures() async throws {
        let port = try SRTTestPeers.freeUDPPort()
        let start = ContinuousClock.now
        let silent = await SRTTestPeers.connect(SRTURL(host: "127.0.0.1", port: port), timeout: .milliseconds(500))
        #expect(silent.failure?.rejectCode == 16)
        #expect(ContinuousClock.now - start < .seconds(30))
        let listenerURL = await SRTTestPeers.connect(SRTURL(host: "127.0.0.1", port: port, mode: .listener))
        #expect(listenerURL.failure == .invalidURL(reason: "connect needs a caller URL (mode=caller)"))
        let unresolvable = await SRTTestPeers.connect(SRTURL(host: "no-such-host.invalid", port: port))
        guard case .unresolvable(host: "no-such-host.invalid", _)? = unresolvable.failure else {
            Issue.record("\(unresolvable)")
            return
        }
    }
}

extension Result {
    var failure: Failure? {
        if case let .failure(error) = self { return error }
        return nil
    }
}

extension SRTError {
    var rejectCode: Int32? {
        if case let .rejected(code, _) = self { return code }
        return nil
    }
}
