// libFuzzer target: a ClientConnection (RTMP 1.0 §5.2, §7.2) playing, fed arbitrary server bytes; seeds start with
// S0+S1+S2. The first byte picks publish or play; feeding the rest in uneven pieces must give the same actions.
import RTMP

private func run(_ pieces: [ArraySlice<UInt8>], mode: ClientConnection.Mode) -> (actions: [ClientAction], error: ProtocolError?) {
    var limits = Limits()
    limits.maxMessageLength = 1 << 16
    limits.maxChunkStreams = 8
    var client = ClientConnection(mode: mode, app: "live", tcURL: "rtmp://127.0.0.1/live", streamKey: "key", limits: limits,
                                  epoch: 1, random: [0x43])
    _ = client.start()
    var actions: [ClientAction] = []
    for piece in pieces {
        do {
            for action in try client.receive(Array(piece)) {
                if case let .send(bytes) = action, case let .send(previous)? = actions.last {
                    actions[actions.count - 1] = .send(previous + bytes)
                } else {
                    actions.append(action)
                }
            }
        } catch {
            return (actions, error)
        }
    }
    if client.isReady {
        var out: [UInt8] = []
        client.encodeMedia(Message(type: .video, timestamp: 0, streamID: 0, payload: [0x17, 1, 0, 0, 0]), into: &out)
        guard !out.isEmpty else { fatalError("encodeMedia wrote nothing") }
    }
    _ = client.close()
    return (actions, nil)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let (selector, bytes) = FuzzInput(data, size).selectorAndRest else { return 0 }
    let mode: ClientConnection.Mode = selector & 1 == 0 ? .play : .publish
    let whole = run([bytes[...]], mode: mode)
    var pieces: [ArraySlice<UInt8>] = []
    var start = 0
    var length = 1
    while start < bytes.count {
        let end = min(bytes.count, start + length)
        pieces.append(bytes[start..<end])
        start = end
        length = length % 89 + 1
    }
    let split = run(pieces, mode: mode)
    guard whole.error == split.error, whole.error != nil || whole.actions == split.actions else {
        fatalError("client connection behaved differently in pieces: \(String(describing: whole.error)) vs \(String(describing: split.error))")
    }
    return 0
}
