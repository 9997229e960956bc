// libFuzzer target: a ServerConnection (RTMP 1.0 §5.2, §7.2) fed arbitrary bytes; seeds start with a valid handshake.
// Each publish request is accepted; feeding the same bytes in uneven pieces must give the same actions.
import RTMP

private let random: [UInt8] = [0x52, 0x54, 0x4D, 0x50]

/// Appends `action`, merging a send into a send before it (where a read was cut must not show in the bytes sent).
private func append(_ action: ServerAction, to actions: inout [ServerAction]) {
    if case let .send(bytes) = action, case let .send(previous)? = actions.last {
        actions[actions.count - 1] = .send(previous + bytes)
    } else {
        actions.append(action)
    }
}

/// Takes `actions` as the ingest does: a publish request is accepted at once, and what acceptPublish returns
/// (the held bytes after the request, read now) is taken the same way, since it may hold another request.
private func perform(_ actions: [ServerAction], on server: inout ServerConnection, into out: inout [ServerAction]) {
    for action in actions {
        append(action, to: &out)
        if case .publishRequested = action {
            perform(server.acceptPublish(), on: &server, into: &out)
        }
    }
}

private func run(_ pieces: [ArraySlice<UInt8>]) -> (actions: [ServerAction], error: ProtocolError?) {
    var limits = Limits()
    limits.maxMessageLength = 1 << 16
    limits.maxChunkStreams = 8
    limits.windowAcknowledgementSize = 4096
    var server = ServerConnection(limits: limits, epoch: 1, random: random)
    var actions: [ServerAction] = []
    do {
        for piece in pieces {
            perform(try server.receive(Array(piece)), on: &server, into: &actions)
        }
        // An error in bytes read by acceptPublish surfaces at the next receive.
        perform(try server.receive([]), on: &server, into: &actions)
    } catch {
        return (actions, error)
    }
    return (actions, nil)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = FuzzInput(data, size).bytes
    let whole = run([bytes[...]])
    var pieces: [ArraySlice<UInt8>] = []
    var start = 0
    var length = 1
    while start < bytes.count {
        let end = min(bytes.count, start + length)
        pieces.append(bytes[start..<end])
        start = end
        length = length % 97 + 1
    }
    let split = run(pieces)
    // On an error the actions before it may differ by where the input was cut; the error itself may not.
    guard whole.error == split.error, whole.error != nil || whole.actions == split.actions else {
        fatalError("""
            server connection behaved differently in pieces: error \(String(describing: whole.error)) vs \
            \(String(describing: split.error)), \(whole.actions.count) vs \(split.actions.count) actions
            """)
    }
    return 0
}
