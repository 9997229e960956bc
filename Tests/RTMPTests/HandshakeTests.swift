import Testing
@testable import RTMP

/// The handshake (RTMP 1.0 §5.2) on both sides.
@Suite struct HandshakeTests {
    private func c0c1(version: UInt8 = 3, zero: [UInt8] = [0, 0, 0, 0]) -> [UInt8] {
        [version] + [0, 0, 0x12, 0x34] + zero + (0..<1528).map { UInt8(truncatingIfNeeded: $0 * 3) }
    }

    @Test func serverAnswersS0S1S2AndWaitsForC2() throws {
        var server = ServerConnection(epoch: 500, random: [0xAB])
        let c1 = Array(c0c1().dropFirst())
        let actions = try server.receive(c0c1())
        guard case let .send(reply)? = actions.first, actions.count == 1 else {
            Issue.record("expected one send, got \(actions)")
            return
        }
        #expect(reply.count == 1 + 1536 * 2)
        #expect(reply[0] == 3)
        #expect(Array(reply[1..<9]) == [0, 0, 0x01, 0xF4, 0, 0, 0, 0], "S1: our time, zero")
        #expect(reply[9..<1537].allSatisfy { $0 == 0xAB })
        #expect(Array(reply[1537...]) == c1, "S2 echoes C1 byte for byte")
        #expect(!server.isHandshakeComplete)
        #expect(try server.receive([UInt8](repeating: 0, count: 1535)).isEmpty)
        #expect(try server.receive([0]).isEmpty)
        #expect(server.isHandshakeComplete)
    }

    @Test func digestC1IsAcceptedWithoutValidation() throws {
        // Flash / OBS "complex" handshake: a version in C1's zero field and a digest somewhere in the random.
        var server = ServerConnection(random: [1])
        let actions = try server.receive(c0c1(zero: [0x80, 0x00, 0x07, 0x02]))
        #expect(actions.count == 1)
    }

    @Test(arguments: [UInt8(6), 4, 0, 0xFF])
    func otherVersionsAreRefusedAtTheFirstByte(version: UInt8) {
        var server = ServerConnection(random: [1])
        #expect(throws: ProtocolError.self) { _ = try server.receive([version]) }
        do {
            _ = try server.receive([version])
            Issue.record("version \(version) accepted")
        } catch {
            #expect(error.kind == .unsupportedVersion)
            #expect(error.detail.contains(version == 6 ? "encrypted" : "expected 3"))
        }
    }

    @Test func clientSendsC0C1ThenC2AndConnect() throws {
        var client = ClientConnection(mode: .publish, app: "live", tcURL: "rtmp://h/live", streamKey: "k", epoch: 1, random: [7])
        let start = client.start()
        #expect(start.count == 1537)
        #expect(Array(start[0..<9]) == [3, 0, 0, 0, 1, 0, 0, 0, 0])
        let s1 = [0, 0, 0, 9, 0, 0, 0, 0] + [UInt8](repeating: 0x42, count: 1528)
        let s2 = Array(start.dropFirst())
        let actions = try client.receive([3] + s1 + s2)
        guard case let .send(reply)? = actions.first else {
            Issue.record("expected C2, got \(actions)")
            return
        }
        #expect(Array(reply[0..<1536]) == s1, "C2 echoes S1 byte for byte")
        var decoder = ChunkDecoder()
        let messages = try decoder.decode(Array(reply[1536...]))
        #expect(try messages.map { try Command(parsing: $0.payload).name } == ["connect"])
    }

    @Test func clientRefusesAnotherS0Version() {
        var client = ClientConnection(mode: .play, app: "live", tcURL: "rtmp://h/live", streamKey: "k", random: [7])
        _ = client.start()
        #expect(throws: ProtocolError(.unsupportedVersion, "S0 version 6 (encrypted RTMPE) is not supported")) {
            _ = try client.receive([6])
        }
    }
}
