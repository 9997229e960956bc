// RTMP specification 1.0, §5.2 Handshake: C0/S0 (version), C1/S1 (time, zero, random), C2/S2 (echo).
import MediaFormats

/// Sizes and values of the handshake (§5.2.2–§5.2.4).
enum HandshakeFormat {
    /// C0/S0: the RTMP version byte we speak.
    static let version: UInt8 = 3
    /// C0 version of encrypted RTMPE, refused by name.
    static let encryptedVersion: UInt8 = 6
    /// C1/S1/C2/S2: 4 bytes time, 4 bytes zero (or version for the digest handshake), 1528 bytes random.
    static let packetSize = 1536
    static let randomSize = 1528

    static func checkVersion(_ version: UInt8, of packet: String) throws(ProtocolError) {
        if version == encryptedVersion {
            throw ProtocolError(.unsupportedVersion, "\(packet) version 6 (encrypted RTMPE) is not supported")
        }
        guard version == HandshakeFormat.version else {
            throw ProtocolError(.unsupportedVersion, "\(packet) version \(version), expected 3")
        }
    }

    /// C1 or S1: time, zero, then `random` repeated to 1528 bytes (zero-filled when empty).
    static func appendFirstPacket(time: UInt32, random: [UInt8], into out: inout [UInt8]) {
        out.appendUInt32(time)
        out.appendUInt32(0)
        if random.isEmpty {
            out.append(contentsOf: repeatElement(0, count: randomSize))
            return
        }
        var written = 0
        while written < randomSize {
            let count = min(random.count, randomSize - written)
            out.append(contentsOf: random[0..<count])
            written += count
        }
    }

    /// C2 or S2: the peer's C1/S1 echoed byte for byte (§5.2.4 has time2 be our read time, but librtmp, as in OBS,
    /// compares the whole echo and FFmpeg sends an exact echo itself). A digest ("complex") C1 is echoed the same
    /// way: its digest is not validated, and clients fall back to the simple handshake when S1's version is zero.
    static func appendEcho(of peer: ArraySlice<UInt8>, into out: inout [UInt8]) {
        out.append(contentsOf: peer)
    }

    /// Fresh random bytes for C1/S1 (not secret: the simple handshake only needs them to differ per connection).
    static func randomBytes() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(randomSize)
        while bytes.count < randomSize {
            let word = generator.next()
            for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        return Array(bytes.prefix(randomSize))
    }
}

/// The server side of the handshake: reads C0+C1, answers S0+S1+S2, then reads C2.
struct ServerHandshake: Sendable {
    private enum State: Sendable { case awaitingC0C1, awaitingC2, complete }
    private var state = State.awaitingC0C1
    private var buffer: [UInt8] = []
    private let epoch: UInt32
    private let random: [UInt8]

    init(epoch: UInt32, random: [UInt8]) {
        self.epoch = epoch
        self.random = random
    }

    var isComplete: Bool { state == .complete }

    /// Consumes what the handshake needs from `bytes` (advancing `consumed`) and appends S0+S1+S2 to `out` once C1 is in.
    mutating func receive(_ bytes: UnsafeRawBufferPointer, consumed: inout Int, out: inout [UInt8]) throws(ProtocolError) {
        while consumed < bytes.count, state != .complete {
            if state == .awaitingC0C1, buffer.isEmpty {
                // Refuse a wrong version at its first byte rather than after 1536 more.
                try HandshakeFormat.checkVersion(bytes[consumed], of: "C0")
            }
            let needed = (state == .awaitingC0C1 ? 1 + HandshakeFormat.packetSize : HandshakeFormat.packetSize) - buffer.count
            let take = min(needed, bytes.count - consumed)
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[consumed..<(consumed + take)]))
            consumed += take
            guard take == needed else { return }
            switch state {
            case .awaitingC0C1:
                out.append(HandshakeFormat.version)
                HandshakeFormat.appendFirstPacket(time: epoch, random: random, into: &out)
                HandshakeFormat.appendEcho(of: buffer[1...], into: &out)
                buffer.removeAll(keepingCapacity: true)
                state = .awaitingC2
            case .awaitingC2:
                // C2 echoes S1; a mismatch is not worth refusing a publisher over (nginx-rtmp does not check either).
                buffer = []
                state = .complete
            case .complete:
                return
            }
        }
    }
}

/// The client side of the handshake: C0+C1 at start, then reads S0+S1+S2 and answers C2.
struct ClientHandshake: Sendable {
    private var buffer: [UInt8] = []
    private(set) var isComplete = false
    private let epoch: UInt32
    private let random: [UInt8]

    init(epoch: UInt32, random: [UInt8]) {
        self.epoch = epoch
        self.random = random
    }

    /// C0 + C1.
    func start() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(1 + HandshakeFormat.packetSize)
        out.append(HandshakeFormat.version)
        HandshakeFormat.appendFirstPacket(time: epoch, random: random, into: &out)
        return out
    }

    /// Consumes S0+S1+S2 from `bytes` and appends C2 to `out` once all three are in.
    mutating func receive(_ bytes: UnsafeRawBufferPointer, consumed: inout Int, out: inout [UInt8]) throws(ProtocolError) {
        guard !isComplete, consumed < bytes.count else { return }
        if buffer.isEmpty { try HandshakeFormat.checkVersion(bytes[consumed], of: "S0") }
        let needed = 1 + 2 * HandshakeFormat.packetSize - buffer.count
        let take = min(needed, bytes.count - consumed)
        buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[consumed..<(consumed + take)]))
        consumed += take
        guard take == needed else { return }
        HandshakeFormat.appendEcho(of: buffer[1...HandshakeFormat.packetSize], into: &out)
        buffer = []
        isComplete = true
    }
}
