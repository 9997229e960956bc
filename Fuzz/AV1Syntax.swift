// libFuzzer target: av1C records, OBU streams (headers, leb128 sizes, sequence headers) and temporal units
// (key-frame detection).
import MediaFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let (selector, bytes) = FuzzInput(data, size).selectorAndRest else { return 0 }
    switch selector % 3 {
    case 0:  // an av1C record
        guard let record = try? AV1CodecConfigurationRecord(parsing: bytes) else { return 0 }
        _ = try? record.sequenceHeader()
        if let written = try? record.serialized() {
            guard (try? AV1CodecConfigurationRecord(parsing: written)) == record else { fatalError("av1C does not read back") }
        }
    case 1:  // a Low Overhead OBU stream
        guard let obus = try? AV1OBU.all(in: bytes) else { return 0 }
        for obu in obus where obu.header.type == .sequenceHeader {
            _ = try? AV1SequenceHeader(parsing: obu.payload)
            var written: [UInt8] = []
            if (try? obu.write(into: &written)) != nil { _ = try? AV1CodecConfigurationRecord(sequenceHeaderOBU: written) }
        }
        _ = try? AV1TemporalUnit(parsing: bytes)
    default:  // one temporal unit (an FLV or MP4 sample)
        _ = try? AV1TemporalUnit(parsing: bytes, reducedStillPictureHeader: selector & 0x80 != 0)
        var reader = ByteReader(bytes)
        while !reader.isAtEnd, (try? LEB128.read(from: &reader)) != nil {}
    }
    return 0
}
