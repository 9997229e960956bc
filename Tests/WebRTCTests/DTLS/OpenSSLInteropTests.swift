import Foundation
import Glibc
import Testing
import MediaFormats
import WebRTC

/// The openssl command line tool (Debian's `openssl` package).
private let opensslTool = "/usr/bin/openssl"

/// `openssl s_client` and `s_server` (a DTLS stack nobody here wrote) against our server and client over loopback
/// UDP: the handshake completes and both export the same RFC 5764 keying material.
/// Under CI it runs whether or not the tool is there, so a missing install fails instead of skipping.
@Suite("DTLS-SRTP against openssl s_client and s_server",
       .enabled(if: FileManager.default.isExecutableFile(atPath: opensslTool) || ProcessInfo.processInfo.environment["CI"] == "true"))
struct OpenSSLInteropTests {

    /// Runs `openssl` with `arguments` to completion; its standard output.
    static func runOpenSSL(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: opensslTool)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// A UDP socket on 127.0.0.1 with an ephemeral port and a short receive timeout; its descriptor and port.
    static func loopbackSocket() throws -> (descriptor: Int32, port: UInt16) {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        try #require(descriptor >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
            }
        }
        try #require(bound)
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return (descriptor, UInt16(bigEndian: address.sin_port))
    }

    /// A P-256 key and self-signed certificate made by openssl in `directory`: their paths and the fingerprint.
    static func peerCertificate(in directory: URL) throws -> (key: String, certificate: String, fingerprint: DTLSFingerprint) {
        let key = directory.appendingPathComponent("key.pem").path
        let certificate = directory.appendingPathComponent("certificate.pem").path
        _ = try runOpenSSL(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                            "-subj", "/CN=peer", "-days", "1", "-keyout", key, "-out", certificate])
        // "sha256 Fingerprint=AB:CD:..." → the SDP's form.
        let printed = try runOpenSSL(["x509", "-noout", "-fingerprint", "-sha256", "-in", certificate])
        let hex = try #require(printed.split(separator: "=").last).trimmingCharacters(in: .whitespacesAndNewlines)
        return (key, certificate, try DTLSFingerprint(parsing: "sha-256 " + hex))
    }

    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-dtls-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// The hex after "Keying material:" in what s_client or s_server printed.
    static func exportedKeys(printed: String) throws -> String {
        let line = try #require(printed.split(separator: "\n").first { $0.contains("Keying material:") })
        return try #require(line.split(separator: ":").last).trimmingCharacters(in: .whitespaces).uppercased()
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { byte in
            let hex = String(byte, radix: 16, uppercase: true)
            return hex.count == 1 ? "0" + hex : hex
        }.joined()
    }

    @Test(.timeLimit(.minutes(1)))
    func ourServerAndOpenSSLsClientExportTheSameKeys() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (key, certificatePath, peerFingerprint) = try Self.peerCertificate(in: directory)

        let certificate = try DTLSCertificate(profiles: [.aes128CmHmacSha1_80])
        let server = try DTLSTransport(role: .server, certificate: certificate, expectedPeerFingerprint: peerFingerprint)
        let (descriptor, port) = try Self.loopbackSocket()
        defer { close(descriptor) }

        let client = Process()
        client.executableURL = URL(fileURLWithPath: opensslTool)
        client.arguments = ["s_client", "-dtls1_2", "-connect", "127.0.0.1:\(port)", "-use_srtp", "SRTP_AES128_CM_SHA1_80",
                            "-keymatexport", DTLSSRTPKeyingMaterial.exporterLabel, "-keymatexportlen", "60",
                            "-cert", certificatePath, "-key", key]
        let output = Pipe()
        client.standardOutput = output
        client.standardError = FileHandle.nullDevice
        // End of input once connected: s_client then sends close_notify and exits.
        client.standardInput = FileHandle.nullDevice
        try client.run()
        defer { if client.isRunning { client.terminate() } }

        var result: DTLSHandshakeResult?
        var events: [DTLSEvent] = []
        var buffer = [UInt8](repeating: 0, count: 2048)
        let deadline = ContinuousClock.now + .seconds(20)
        // s_client's address, from its first datagram; retransmissions go there too.
        var peer = sockaddr_storage()
        var peerLength = socklen_t(0)
        while !events.contains(.closedByPeer), DTLSPeers.failure(in: events) == nil, ContinuousClock.now < deadline {
            var sender = sockaddr_storage()
            var senderLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let count = buffer.withUnsafeMutableBytes { bytes in
                withUnsafeMutablePointer(to: &sender) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(descriptor, bytes.baseAddress, bytes.count, 0, $0, &senderLength) }
                }
            }
            if count > 0 {
                peer = sender
                peerLength = senderLength
            }
            let output = count > 0 ? server.receive(Array(buffer[0..<count])) : server.handleTimeout()
            events += output.events
            result = result ?? DTLSPeers.result(in: output.events)
            for datagram in output.datagrams where peerLength > 0 {
                _ = datagram.withUnsafeBytes { bytes in
                    withUnsafePointer(to: &peer) { pointer in
                        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(descriptor, bytes.baseAddress, bytes.count, 0, $0, peerLength) }
                    }
                }
            }
        }
        #expect(DTLSPeers.failure(in: events) == nil)
        let completed = try #require(result)
        #expect(completed.profile == .aes128CmHmacSha1_80)
        #expect(completed.peerFingerprint == peerFingerprint)

        let printedByClient = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        client.waitUntilExit()
        // s_client prints "Keying material: <hex>" after the handshake.
        #expect(try Self.exportedKeys(printed: printedByClient) == Self.hex(completed.keyingMaterial.exported))
    }

    @Test(.timeLimit(.minutes(1)))
    func ourClientAndOpenSSLsServerExportTheSameKeys() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (key, certificatePath, peerFingerprint) = try Self.peerCertificate(in: directory)
        let server = Process()
        server.executableURL = URL(fileURLWithPath: opensslTool)
        // -Verify 1 asks for our certificate and refuses the handshake without one; -naccept 1 exits after us.
        server.arguments = ["s_server", "-dtls1_2", "-4", "-accept", "0", "-naccept", "1", "-Verify", "1",
                            "-use_srtp", "SRTP_AES128_CM_SHA1_80", "-keymatexport", DTLSSRTPKeyingMaterial.exporterLabel,
                            "-keymatexportlen", "60", "-cert", certificatePath, "-key", key]
        let output = Pipe()
        let input = Pipe()
        server.standardOutput = output
        server.standardError = FileHandle.nullDevice
        // Held open: s_server stops at the end of its input.
        server.standardInput = input
        try server.run()
        defer { if server.isRunning { server.terminate() } }

        // "ACCEPT 0.0.0.0:<port>" once it listens.
        var printed = ""
        while !printed.contains("ACCEPT") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            printed += String(decoding: chunk, as: UTF8.self)
        }
        let acceptLine = try #require(printed.split(separator: "\n").first { $0.hasPrefix("ACCEPT") })
        let port = try #require(acceptLine.split(separator: ":").last.flatMap { UInt16($0.trimmingCharacters(in: .whitespaces)) })

        let certificate = try DTLSCertificate(profiles: [.aes128CmHmacSha1_80])
        let client = try DTLSTransport(role: .client, certificate: certificate, expectedPeerFingerprint: peerFingerprint)
        let (descriptor, _) = try Self.loopbackSocket()
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(connected == 0)

        var events: [DTLSEvent] = []
        var pending = client.start()
        var buffer = [UInt8](repeating: 0, count: 2048)
        let deadline = ContinuousClock.now + .seconds(20)
        while DTLSPeers.result(in: events) == nil, DTLSPeers.failure(in: events) == nil, ContinuousClock.now < deadline {
            events += pending.events
            for datagram in pending.datagrams {
                _ = datagram.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
            }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            pending = count > 0 ? client.receive(Array(buffer[0..<count])) : client.handleTimeout()
        }
        events += pending.events
        for datagram in pending.datagrams {
            _ = datagram.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
        }
        #expect(DTLSPeers.failure(in: events) == nil)
        let completed = try #require(DTLSPeers.result(in: events))
        #expect(completed.profile == .aes128CmHmacSha1_80)
        #expect(completed.peerFingerprint == peerFingerprint)

        // Our close_notify ends s_server's only connection, and with it s_server.
        for datagram in client.close().datagrams {
            _ = datagram.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
        }
        try input.fileHandleForWriting.close()
        printed += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        server.waitUntilExit()
        #expect(try Self.exportedKeys(printed: printed) == Self.hex(completed.keyingMaterial.exported))
    }
}
