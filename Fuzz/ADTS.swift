// libFuzzer target: ADTS headers (ISO/IEC 13818-7 §6.2) and the frame scanner over a whole .aac buffer.
import MediaFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = FuzzInput(data, size).bytes
    if let header = try? ADTSHeader(parsing: bytes) {
        var written: [UInt8] = []
        header.write(into: &written)
        guard let reread = try? ADTSHeader(parsing: written), reread == header else {
            fatalError("ADTS header \(header) does not read back")
        }
    }
    // The scanner from every start a sliced buffer can have, to catch index arithmetic on non-zero start indices.
    for start in [0, 1, 7] where start <= bytes.count {
        var scanner = ADTSFrameScanner(bytes[start...])
        var frames = 0
        while let frame = try? scanner.next() {
            frames += 1
            guard frame.frameRange.count > 0, frames <= bytes.count else { fatalError("ADTS scanner did not advance") }
            _ = bytes[frame.payloadRange]
        }
        _ = scanner.remaining
    }
    _ = try? ADTSFrameScanner.frames(in: bytes)
    return 0
}
