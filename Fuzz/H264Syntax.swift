// libFuzzer target: NAL unit headers, SPS, PPS, slice headers and picture order counts of an Annex B stream,
// then the same bytes through the access-unit timestamper (which keeps parameter sets across access units).
import MediaFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    var spsById: [Int: SequenceParameterSet] = [:]
    var ppsById: [Int: PictureParameterSet] = [:]
    var counter = PictureOrderCounter()
    // An input without start codes is one bare NAL unit.
    let nalUnits = AnnexB.hasStartCode(input.bytes) ? AnnexB.nalUnits(in: input.bytes) : [input.bytes[...]]
    for nalUnit in nalUnits {
        guard let header = try? NALUnitHeader(parsing: nalUnit) else { continue }
        _ = EmulationPrevention.removing(from: nalUnit)
        switch header.nalUnitType {
        case .sequenceParameterSet:
            _ = try? SequenceParameterSet.id(ofNALUnit: nalUnit)
            if let sps = try? SequenceParameterSet(parsing: nalUnit) {
                spsById[sps.id] = sps
                _ = (sps.width, sps.height, sps.maxNumReorderFrames, sps.frameRate)
            }
        case .pictureParameterSet:
            guard let ids = try? PictureParameterSet.ids(ofNALUnit: nalUnit) else { continue }
            let chroma = spsById[ids.spsId]?.chromaFormatIdc ?? 1
            if let pps = try? PictureParameterSet(parsing: nalUnit, chromaFormatIdc: chroma) { ppsById[pps.id] = pps }
        case .codedSliceIDR, .codedSliceNonIDR:
            guard let slice = try? SliceHeader(parsing: nalUnit, sequenceParameterSets: spsById, pictureParameterSets: ppsById),
                  let pps = ppsById[slice.ppsId], let sps = spsById[pps.spsId] else { continue }
            _ = counter.compute(slice, sps: sps)
        default:
            continue
        }
    }
    var timestamper = AnnexBAccessUnitTimestamper(frameDuration: 3000, maximumPeriodLength: 64)
    for accessUnit in input.parts {
        _ = try? timestamper.push(accessUnit)
    }
    _ = timestamper.flush()
    return 0
}
