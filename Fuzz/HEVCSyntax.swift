// libFuzzer target: hvcC records, HEVC NAL unit headers and SPS, and both converters (Annex B → hvcC samples and
// record, then back to Annex B with parameter sets injected before IRAP pictures).
import MediaFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let (selector, bytes) = FuzzInput(data, size).selectorAndRest else { return 0 }
    switch selector % 4 {
    case 0:  // an hvcC record
        guard let record = try? HEVCDecoderConfigurationRecord(parsing: bytes) else { return 0 }
        for sps in record.nalUnits(ofType: .sequenceParameterSet) { _ = try? HEVCSequenceParameterSet(parsing: sps) }
        if let written = try? record.serialized() {
            guard (try? HEVCDecoderConfigurationRecord(parsing: written)) == record else { fatalError("hvcC does not read back") }
        }
        _ = try? HVCCToAnnexBConverter(record: record)
    case 1:  // one NAL unit, an SPS most often
        _ = try? HEVCNALUnitHeader(parsing: bytes)
        if let sps = try? HEVCSequenceParameterSet(parsing: bytes) {
            _ = (sps.width, sps.height, sps.frameRate)
            guard (try? HEVCSequenceParameterSet.id(ofNALUnit: bytes)) == sps.id else { fatalError("SPS id differs") }
        }
    case 2:  // Annex B access units separated by FUZZ
        var toHVCC = AnnexBToHVCCConverter()
        var samples: [[UInt8]] = []
        for accessUnit in FuzzInput(bytes: bytes).parts {
            guard let (sample, _) = try? toHVCC.convert(accessUnit) else { continue }
            samples.append(sample)
            for nalUnit in AnnexB.nalUnits(in: accessUnit) {
                _ = try? HEVCNALUnitHeader(parsing: nalUnit)
                _ = try? HEVCSequenceParameterSet(parsing: nalUnit)
            }
        }
        guard let record = toHVCC.record, var toAnnexB = try? HVCCToAnnexBConverter(record: record) else { return 0 }
        for sample in samples { _ = try? toAnnexB.convert(sample) }
        toAnnexB.reset()
    default:  // an hvcC record, then samples, separated by FUZZ
        let parts = FuzzInput(bytes: bytes).parts
        guard let record = try? HEVCDecoderConfigurationRecord(parsing: parts[0]),
              var converter = try? HVCCToAnnexBConverter(record: record) else { return 0 }
        for sample in parts.dropFirst() { _ = try? converter.convert(sample) }
        var seeded = try? AnnexBToHVCCConverter(extradata: parts[0])
        for sample in parts.dropFirst() { _ = try? seeded?.convert(sample) }
    }
    return 0
}
