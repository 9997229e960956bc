// ITU-T H.222.0 / ISO/IEC 13818-1 (2019) §2.14.1 and §2.17.1: an AVC or HEVC access unit in a TS PES starts with an
// access unit delimiter (H.264 §7.3.2.4, H.265 §7.3.2.5); a decoder joining at a random access point needs the
// parameter sets right before it (H.264 §7.4.1.2.3, H.265 §7.4.2.4.4), since TS carries no out-of-band configuration.

/// Makes an Annex B access unit ready for a TS PES: an access unit delimiter first when it has none, and the known
/// parameter sets before an IDR (H.264) or IRAP (HEVC) picture that lacks them.
struct TSVideoAccessUnitPreparer: Sendable {
    /// H.264 AUD: nal_unit_type 9, primary_pic_type 7 (any slice type) + rbsp_stop_one_bit.
    static let h264AccessUnitDelimiter: [UInt8] = AnnexB.startCode4 + [0x09, 0xF0]
    /// HEVC AUD: nal_unit_type 35, layer 0, TemporalId 0; pic_type 2 (any slice type) + rbsp_stop_one_bit.
    static let hevcAccessUnitDelimiter: [UInt8] = AnnexB.startCode4 + [0x46, 0x01, 0x50]

    private enum State: Sendable {
        case h264(AnnexBParameterSetInjector)
        case hevc(HEVCParameterSets, seeded: HEVCParameterSets)
    }

    private var state: State

    /// A preparer for `codec` (H.264 or HEVC), seeded with the parameter sets of `extradata` (avcC, hvcC or Annex B; may
    /// be empty).
    init(codec: TSStreamCodec, extradata: [UInt8]) throws {
        switch codec {
        case .h264:
            state = .h264(try AnnexBParameterSetInjector(extradata: extradata))
        case .hevc:
            var sets = HEVCParameterSets()
            if HEVCDecoderConfigurationRecord.isHVCC(extradata) {
                sets = try HEVCParameterSets(record: HEVCDecoderConfigurationRecord(parsing: extradata))
            } else {
                for nalUnit in AnnexB.nalUnits(in: extradata) { _ = try sets.store(nalUnit) }
            }
            state = .hevc(sets, seeded: sets)
        default:
            throw MediaFormatError.unsupported(structure: "TS video access unit", reason: "\(codec) is not H.264 or HEVC")
        }
    }

    /// Forgets in-band parameter sets and goes back to the extradata's.
    mutating func reset() {
        switch state {
        case var .h264(injector):
            injector.reset()
            state = .h264(injector)
        case let .hevc(_, seeded):
            state = .hevc(seeded, seeded: seeded)
        }
    }

    /// The access unit as it goes into the PES, and whether it holds an IDR (H.264) or IRAP (HEVC) picture.
    mutating func prepare(_ accessUnit: [UInt8]) throws -> (bytes: [UInt8], isKeyframe: Bool) {
        let prepared: [UInt8]
        let isKeyframe: Bool
        let delimiter: [UInt8]
        let startsWithDelimiter: Bool
        let firstNALUnit = AnnexB.nalUnits(in: accessUnit).first
        switch state {
        case var .h264(injector):
            (prepared, isKeyframe) = try injector.convert(accessUnit)
            state = .h264(injector)
            delimiter = Self.h264AccessUnitDelimiter
            startsWithDelimiter = firstNALUnit.map { NALUnitHeader($0[$0.startIndex]).nalUnitType == .accessUnitDelimiter } ?? false
        case .hevc(var sets, let seeded):
            (prepared, isKeyframe) = try Self.insertHEVCParameterSets(accessUnit, sets: &sets)
            state = .hevc(sets, seeded: seeded)
            delimiter = Self.hevcAccessUnitDelimiter
            startsWithDelimiter = firstNALUnit.map { HEVCNALUnitHeader.type(ofFirstByte: $0[$0.startIndex]) == .accessUnitDelimiter } ?? false
        }
        return (startsWithDelimiter ? prepared : delimiter + prepared, isKeyframe)
    }

    /// Copies `accessUnit`, inserting every known VPS, SPS and PPS before its first IRAP NAL unit when it has not
    /// carried all three by then; in-band parameter sets replace the known ones of the same id.
    private static func insertHEVCParameterSets(_ accessUnit: [UInt8], sets: inout HEVCParameterSets) throws -> ([UInt8], Bool) {
        var output: [UInt8] = []
        output.reserveCapacity(accessUnit.count + 128)
        var scan = HEVCParameterSetInsertionScan()
        var copied = accessUnit.startIndex
        for range in AnnexB.nalUnitRanges(in: accessUnit) where try scan.observe(accessUnit[range], storingInto: &sets) {
            // The NAL unit keeps its own start code (and a 4-byte start code's zero_byte).
            var insertion = range.lowerBound - 3
            while insertion > copied && accessUnit[insertion - 1] == 0 { insertion -= 1 }
            output += accessUnit[copied..<insertion]
            sets.appendAnnexB(into: &output)
            copied = insertion
        }
        output += accessUnit[copied...]
        return (output, scan.isKeyframe)
    }
}
