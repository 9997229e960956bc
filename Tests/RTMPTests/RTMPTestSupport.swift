import MediaFormats
@testable import RTMP

/// Decodes `bytes` twice, all at once and one byte at a time, and returns the messages when both agree.
func decodeWholeAndByteByByte(_ bytes: [UInt8], limits: Limits = Limits()) throws -> [Message] {
    var whole = ChunkDecoder(limits: limits)
    let all = try whole.decode(bytes)
    var split = ChunkDecoder(limits: limits)
    var oneByOne: [Message] = []
    for byte in bytes { oneByOne += try split.decode([byte]) }
    guard all == oneByOne else { throw SplitMismatch(whole: all.count, split: oneByOne.count) }
    return all
}

struct SplitMismatch: Error {
    var whole: Int
    var split: Int
}

/// A type 0 chunk header with a 1-byte basic header: fmt 0, chunk stream ID, timestamp, length, type, stream ID (LE).
func type0Header(chunkStream: UInt8, timestamp: UInt32, length: Int, typeID: UInt8, streamID: UInt32) -> [UInt8] {
    var bytes: [UInt8] = [chunkStream]
    bytes.appendUInt24(min(timestamp, 0xFF_FFFF))
    bytes.appendUInt24(UInt32(length))
    bytes.append(typeID)
    bytes += [UInt8(streamID & 0xFF), UInt8(streamID >> 8 & 0xFF), UInt8(streamID >> 16 & 0xFF), UInt8(streamID >> 24)]
    if timestamp >= 0xFF_FFFF { bytes.appendUInt32(timestamp) }
    return bytes
}

/// Consecutive `.send` actions merged, so action lists from differently split input compare equal.
func mergingSends(_ actions: [ServerAction]) -> [ServerAction] {
    var merged: [ServerAction] = []
    for action in actions {
        if case let .send(bytes) = action, case let .send(previous)? = merged.last {
            merged[merged.count - 1] = .send(previous + bytes)
        } else {
            merged.append(action)
        }
    }
    return merged
}

func mergingSends(_ actions: [ClientAction]) -> [ClientAction] {
    var merged: [ClientAction] = []
    for action in actions {
        if case let .send(bytes) = action, case let .send(previous)? = merged.last {
            merged[merged.count - 1] = .send(previous + bytes)
        } else {
            merged.append(action)
        }
    }
    return merged
}

/// Fixed handshake randomness so two runs of one conversation are byte-identical.
let serverRandom: [UInt8] = Array(0..<200).map { UInt8($0) }
let clientRandom: [UInt8] = Array(0..<100).map { UInt8(255 - $0) }

/// A client publishing to a server in memory, with every byte each side sent, in order.
struct Conversation {
    var client: ClientConnection
    var server: ServerConnection
    var toServer: [UInt8] = []
    var toClient: [UInt8] = []
    var serverActions: [ServerAction] = []
    var clientActions: [ClientAction] = []

    init(mode: ClientConnection.Mode = .publish, clientLimits: Limits = Limits(), serverLimits: Limits = Limits()) {
        client = ClientConnection(mode: mode, app: "live", tcURL: "rtmp://127.0.0.1/live", streamKey: "secret-key",
                                  limits: clientLimits, epoch: 7, random: clientRandom)
        server = ServerConnection(limits: serverLimits, epoch: 9, random: serverRandom)
    }

    /// Decodes what the server writes, continuing the chunk stream of the conversation so far.
    private var serverOutput: ChunkDecoder?

    /// Feeds `bytes` to the server; returns its actions and the messages it wrote.
    mutating func sendToServer(_ bytes: [UInt8]) throws -> (actions: [ServerAction], replies: [Message]) {
        if serverOutput == nil {
            var decoder = ChunkDecoder()
            _ = try decoder.decode(Array(toClient[3073...]))
            serverOutput = decoder
        }
        let actions = try server.receive(bytes)
        var sent: [UInt8] = []
        for case let .send(chunk) in actions { sent += chunk }
        toClient += sent
        let replies = try serverOutput?.decode(sent) ?? []
        return (actions, replies)
    }

    /// Runs the exchange until neither side has anything to say; `onPublish` answers `.publishRequested`.
    mutating func run(onPublish: (inout ServerConnection) -> [ServerAction] = { $0.acceptPublish() }) throws {
        var pendingToServer = client.start()
        toServer += pendingToServer
        var rounds = 0
        while !pendingToServer.isEmpty, rounds < 20 {
            rounds += 1
            var pendingToClient: [UInt8] = []
            for action in try server.receive(pendingToServer) {
                serverActions.append(action)
                switch action {
                case let .send(bytes): pendingToClient += bytes
                case .publishRequested:
                    for answer in onPublish(&server) {
                        serverActions.append(answer)
                        if case let .send(bytes) = answer { pendingToClient += bytes }
                    }
                default: break
                }
            }
            toClient += pendingToClient
            pendingToServer = []
            for action in try client.receive(pendingToClient) {
                clientActions.append(action)
                if case let .send(bytes) = action { pendingToServer += bytes }
            }
            toServer += pendingToServer
        }
    }
}
