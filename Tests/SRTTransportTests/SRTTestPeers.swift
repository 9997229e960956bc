import JobDocument
import Foundation
import SRTTransport
import NIOConcurrencyHelpers

/// What callbacks delivered, collected for a test to wait on and read.
final class Inbox<Value: Sendable>: Sendable {
    private let values = NIOLockedValueBox<[Value]>([])

    func append(_ value: Value) { values.withLockedValue { $0.append(value) } }
    var all: [Value] { values.withLockedValue { $0 } }

    var count: Int { values.withLockedValue { $0.count } }
}

/// One publisher at a time, as a listen job admits them.
final class PublisherSlot: Sendable {
    private let taken = NIOLockedValueBox(false)

    /// Takes the slot if it is free; true when taken.
    func take() -> Bool {
        taken.withLockedValue { taken in
            defer { taken = true }
            return !taken
        }
    }

    func free() { taken.withLockedValue { $0 = false } }
}

/// Bytes received in bursts, concatenated.
final class ByteSink: Sendable {
    private let bytes = NIOLockedValueBox<[UInt8]>([])

    func append(_ burst: [UInt8]) { bytes.withLockedValue { $0.append(contentsOf: burst) } }
    var all: [UInt8] { bytes.withLockedValue { $0 } }
    var count: Int { bytes.withLockedValue { $0.count } }
}

enum SRTTestPeers {
    /// `connect` awaited: the connection or the error.
    static func connect(_ url: SRTURL, localPort: UInt16? = nil, timeout: Duration = SRTConnection.defaultConnectTimeout)
        async -> Result<SRTConnection, SRTError>
    {
        await withCheckedContinuation { continuation in
            SRTConnection.connect(to: url, localPort: localPort, timeout: timeout) { continuation.resume(returning: $0) }
        }
    }

    /// `count` bytes of a seeded pattern, so a reordered or dropped message shows as a mismatch.
    static func pattern(_ count: Int, seed: UInt32) -> [UInt8] {
        var state = seed | 1
        return (0..<count).map { _ in
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            return UInt8(truncatingIfNeeded: state)
        }
    }

    /// Sends `bytes` paced (a few messages per millisecond, as a live stream comes), resending after a full buffer.
    static func sendPaced(_ bytes: [UInt8], on connection: SRTConnection, messagesPerStep: Int = 20) async throws {
        let step = SRTConnection.messageSize * messagesPerStep
        var offset = 0
        while offset < bytes.count {
            let chunk = Array(bytes[offset..<min(bytes.count, offset + step)])
            switch connection.send(chunk) {
            case .sent:
                offset += chunk.count
            case let .wouldBlock(sentBytes):
                offset += sentBytes
            case let .failed(error):
                throw error
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Whether a UDP port of this machine is bound, from the kernel's tables (what a test waits for before calling a
    /// peer that listens).
    static func isUDPBound(_ port: UInt16) -> Bool {
        let local = String(format: ":%04X", port)
        return ["/proc/net/udp", "/proc/net/udp6"].contains { path in
            guard let table = try? String(contentsOfFile: path, encoding: .utf8) else { return false }
            return table.split(separator: "\n").dropFirst().contains { line in
                line.split(separator: " ").dropFirst().first?.hasSuffix(local) ?? false
            }
        }
    }

    /// A UDP port nothing is bound to now (the kernel's pick for an ephemeral bind), for a peer that needs a number.
    static func freeUDPPort() throws -> UInt16 {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(descriptor, raw, length) == 0 && getsockname(descriptor, raw, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        return UInt16(bigEndian: address.sin_port)
    }

    /// The threads of this process now.
    static func threadCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
    }

    /// The names of this process's threads with how many share each, e.g. `["SRT:RcvQ:w1": 1]`.
    static func threadNames() -> [String: Int] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        var names: [String: Int] = [:]
        for task in tasks {
            let name = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
            names[name, default: 0] += 1
        }
        return names
    }
}
