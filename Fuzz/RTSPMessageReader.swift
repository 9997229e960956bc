// libFuzzer target: the RTSP message reader (RFC 2326 §7 responses, §10.12 interleaved frames) over bytes cut at the
// points the first byte chooses, against the same bytes read whole; then the headers the client reads from each response.
import RTSP

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let (selector, bytes) = FuzzInput(data, size).selectorAndRest else { return 0 }
    let whole = read(bytes, chunk: bytes.count + 1)
    let chunked = read(bytes, chunk: Int(selector % 17) + 1)
    // Where the bytes are cut must not change what is read, nor whether it fails (the error may differ: a header block
    // over the limit is refused as soon as the limit is passed, or once its end is seen).
    guard whole.messages == chunked.messages, (whole.error == nil) == (chunked.error == nil) else {
        fatalError("RTSP reader: \(whole) whole, \(chunked) in chunks of \(Int(selector % 17) + 1)")
    }
    for case let .response(response) in whole.messages {
        _ = response.sequenceNumber
        if let transport = response.headers["Transport"], let parsed = try? RTSPTransport(parsing: transport) {
            guard (try? RTSPTransport(parsing: parsed.value)) == parsed else { fatalError("Transport \(parsed.value) does not read back") }
        }
        _ = try? response.headers["Session"].map { try RTSPSessionHeader(parsing: $0) }
        for value in response.headers.values("WWW-Authenticate") { _ = try? RTSPAuthenticationChallenge.parse(value) }
    }
    return 0
}

/// Messages until the bytes run out or the first error.
private func read(_ bytes: [UInt8], chunk: Int) -> (messages: [RTSPMessage], error: RTSPError?) {
    var reader = RTSPMessageReader()
    var messages: [RTSPMessage] = []
    var start = 0
    while start < bytes.count {
        reader.append(bytes[start..<min(start + chunk, bytes.count)])
        start += chunk
        do {
            while let message = try reader.next() { messages.append(message) }
        } catch let error as RTSPError {
            return (messages, error)
        } catch {
            fatalError("RTSP reader threw \(error), not an RTSPError")
        }
    }
    return (messages, nil)
}
