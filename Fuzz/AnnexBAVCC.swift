// libFuzzer target: Annex B ⇄ AVCC conversions with parameter-set tracking and injection, as copy mode runs them.
// Input: extradata, then samples, separated by "FUZZ"; the first byte picks the AVCC NAL unit length size.
import MediaFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let (selector, rest) = FuzzInput(data, size).selectorAndRest else { return 0 }
    var parts = FuzzInput(bytes: rest).parts
    let extradata = parts.removeFirst()
    let lengthSize = [1, 2, 4][Int(selector) % 3]

    _ = AnnexB.nalUnitRanges(in: rest)
    _ = try? AVCC.nalUnitRanges(in: rest, lengthSize: lengthSize)

    var toAVCC = (try? AnnexBToAVCCConverter(extradata: extradata)) ?? AnnexBToAVCCConverter()
    var injector = try? AnnexBParameterSetInjector(extradata: extradata)
    var toAnnexB: AVCCToAnnexBConverter?
    if var record = try? AVCDecoderConfigurationRecord(parsing: extradata) {
        record.nalUnitLengthSize = lengthSize
        toAnnexB = try? AVCCToAnnexBConverter(record: record)
    }
    for (index, sample) in parts.enumerated() {
        if let (avcc, _) = try? toAVCC.convert(sample) {
            // What AnnexBToAVCC wrote must split back into NAL units with its own length size.
            guard (try? AVCC.nalUnits(in: avcc, lengthSize: AnnexBToAVCCConverter.nalUnitLengthSize)) != nil else {
                fatalError("AnnexBToAVCC wrote a sample its own lengths do not describe")
            }
        }
        _ = toAVCC.record
        _ = try? injector?.convert(sample)
        _ = try? toAnnexB?.convert(sample)
        if index % 7 == 6 {
            toAVCC.reset()
            injector?.reset()
            toAnnexB?.reset()
        }
    }
    return 0
}
