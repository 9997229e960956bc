// libFuzzer target: AMF0 values (AMF0 specification §2), decoded, encoded, and decoded again.
import MediaFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = FuzzInput(data, size).bytes
    var reader = ByteReader(bytes)
    guard let value = try? AMF0Value(parsing: &reader) else { return 0 }
    var written: [UInt8] = []
    guard (try? value.write(into: &written)) != nil else { return 0 }
    // Compared as bytes: a NaN number is a valid value that is never == itself.
    var rewritten: [UInt8] = []
    guard let reread = try? AMF0Value(parsing: written), (try? reread.write(into: &rewritten)) != nil, rewritten == written else {
        fatalError("AMF0 value does not survive a write and a read: \(value)")
    }
    return 0
}
