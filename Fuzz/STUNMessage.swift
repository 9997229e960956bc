// libFuzzer target: STUN messages (RFC 5389 §6 header, §15 attributes) read from any bytes; what reads must write back
// and read again to the same message, and FINGERPRINT appended to it must check; the shared port's USERNAME routing
// must agree with the parser on the same bytes.
import WebRTC

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = FuzzInput(data, size).bytes
    _ = STUNFingerprint.verify(bytes)
    let fragment = ICEUsername.receiverFragment(ofBindingRequest: bytes)
    let message: STUNMessage
    do {
        message = try STUNMessage(parsing: bytes)
    } catch {
        guard error is STUNError else { fatalError("STUN parser threw \(error), not a STUNError") }
        return 0
    }
    let written = message.serialized()
    guard written.count <= bytes.count, written.count % 4 == 0 else {
        fatalError("STUN message of \(bytes.count) bytes wrote back as \(written.count)")
    }
    guard let reread = try? STUNMessage(parsing: written), reread == message else {
        fatalError("STUN message \(message) does not read back from \(written)")
    }
    var unsigned = message
    unsigned.attributes.removeAll { $0.type == .fingerprint }
    var fingerprinted = unsigned.serialized(padding: 0x20)
    STUNFingerprint.append(to: &fingerprinted)
    guard STUNFingerprint.verify(fingerprinted) == .valid else { fatalError("FINGERPRINT appended to \(unsigned) does not check") }
    if message.type == .bindingRequest, let username = message.username, let colon = username.firstIndex(of: ":"),
       fragment != String(username[..<colon]) {
        fatalError("routing read \(fragment ?? "nothing") from USERNAME \(username)")
    }
    return 0
}
