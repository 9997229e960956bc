// libFuzzer target: AudioSpecificConfig (ISO/IEC 14496-3 §1.6.2.1) parsed and written back, and the ADTS header
// made from it (what an ADTS output does with an FLV or MP4 input's config).
import MediaFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = FuzzInput(data, size).bytes
    guard let config = try? AudioSpecificConfig(parsing: bytes) else { return 0 }
    _ = AudioObjectType.name(of: config.objectType)
    var written: [UInt8] = []
    config.write(into: &written)
    // The canonical form reads back to the same fields and writes itself again (`==` also compares the
    // original bytes, whose trailing padding the canonical form may drop).
    var rewritten: [UInt8] = []
    guard let reread = try? AudioSpecificConfig(parsing: written) else {
        fatalError("AudioSpecificConfig \(bytes) was written as \(written), which does not parse")
    }
    reread.write(into: &rewritten)
    guard rewritten == written, reread.objectType == config.objectType,
          reread.samplingFrequency == config.samplingFrequency, reread.channelConfiguration == config.channelConfiguration,
          reread.sbrPresent == config.sbrPresent, reread.psPresent == config.psPresent,
          reread.extensionSamplingFrequency == config.extensionSamplingFrequency else {
        fatalError("AudioSpecificConfig round trip changed \(bytes) into \(written)")
    }
    for payloadLength in [0, 1, 371, ADTSHeader.maxFrameLength] {
        guard let header = try? ADTSHeader(audioSpecificConfig: config, payloadLength: payloadLength) else { continue }
        var headerBytes: [UInt8] = []
        header.write(into: &headerBytes)
        guard let parsed = try? ADTSHeader(parsing: headerBytes), parsed == header else {
            fatalError("ADTS header made from \(bytes) does not read back")
        }
    }
    return 0
}
