// libFuzzer target: the avcC box (ISO/IEC 14496-15 §5.3.3.1) parsed, written back and parsed again, and the same
// bytes read as Annex B extradata (how FFmpeg hands SPS/PPS of a raw or TS input).
import MediaFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = FuzzInput(data, size).bytes
    _ = AVCDecoderConfigurationRecord.isAVCC(bytes)
    if let record = try? AVCDecoderConfigurationRecord(parsing: bytes), let written = try? record.serialized() {
        // What the writer produced must read back to the same record: the FLV sequence header depends on it.
        guard let reread = try? AVCDecoderConfigurationRecord(parsing: written), reread == record else {
            fatalError("avcC round trip changed the record: \(record)")
        }
    }
    _ = try? AVCDecoderConfigurationRecord(annexB: bytes)
    _ = try? AVCDecoderConfigurationRecord(annexB: bytes, nalUnitLengthSize: 2)
    return 0
}
