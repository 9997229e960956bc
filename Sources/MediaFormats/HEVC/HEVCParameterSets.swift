// ITU-T H.265 (v8, 08/2021) §7.4.3.1–7.4.3.3: VPS, SPS and PPS are identified by vps_video_parameter_set_id,
// sps_seq_parameter_set_id and pps_pic_parameter_set_id; a later one with the same id replaces the earlier.

/// The latest VPS, SPS and PPS of each id seen in a stream, for injection before IRAP pictures and for hvcC.
struct HEVCParameterSets: Sendable, Equatable {
    private(set) var videoParameterSets: [Int: [UInt8]] = [:]
    private(set) var sequenceParameterSets: [Int: [UInt8]] = [:]
    private(set) var pictureParameterSets: [Int: [UInt8]] = [:]

    /// pps_pic_parameter_set_id is at most 63.
    static let maxPictureParameterSetId = 63

    init() {}

    /// The VPS, SPS and PPS of a record's arrays.
    init(record: HEVCDecoderConfigurationRecord) throws {
        for array in record.arrays where array.nalUnitType.isParameterSet {
            for nalUnit in array.nalUnits { _ = try store(nalUnit) }
        }
    }

    /// At least one of each: enough for a decoder to start at an IRAP picture.
    var isComplete: Bool { !videoParameterSets.isEmpty && !sequenceParameterSets.isEmpty && !pictureParameterSets.isEmpty }

    var orderedVideoParameterSets: [[UInt8]] { videoParameterSets.sorted { $0.key < $1.key }.map(\.value) }
    var orderedSequenceParameterSets: [[UInt8]] { sequenceParameterSets.sorted { $0.key < $1.key }.map(\.value) }
    var orderedPictureParameterSets: [[UInt8]] { pictureParameterSets.sorted { $0.key < $1.key }.map(\.value) }

    /// Keeps `nalUnit` if it is a VPS, SPS or PPS; returns true when it differs from the one held for its id.
    /// A parameter set whose id cannot be read throws.
    mutating func store(_ nalUnit: some Collection<UInt8>) throws -> Bool {
        let bytes = Array(nalUnit)
        let header = try HEVCNALUnitHeader(parsing: bytes)
        switch header.nalUnitType {
        case .videoParameterSet:
            // vps_video_parameter_set_id: the first 4 bits after the header.
            guard bytes.count > HEVCNALUnitHeader.size else { throw MediaFormatError.truncated(needed: 1, available: 0) }
            return Self.replace(&videoParameterSets, Int(bytes[HEVCNALUnitHeader.size] >> 4), with: bytes)
        case .sequenceParameterSet:
            return Self.replace(&sequenceParameterSets, try HEVCSequenceParameterSet.id(ofNALUnit: bytes), with: bytes)
        case .pictureParameterSet:
            var reader = BitReader(EmulationPrevention.removing(from: bytes.dropFirst(HEVCNALUnitHeader.size)))
            let id = Int(try reader.readUE())
            guard id <= Self.maxPictureParameterSetId else {
                throw MediaFormatError.invalid(structure: "HEVC PPS", reason: "pps_pic_parameter_set_id \(id) (at most 63)")
            }
            return Self.replace(&pictureParameterSets, id, with: bytes)
        default:
            return false
        }
    }

    /// Appends every VPS, then SPS, then PPS, each after a 4-byte start code.
    func appendAnnexB(into output: inout [UInt8]) {
        AnnexB.write(nalUnits: orderedVideoParameterSets + orderedSequenceParameterSets + orderedPictureParameterSets,
                     into: &output)
    }

    private static func replace(_ sets: inout [Int: [UInt8]], _ id: Int, with bytes: [UInt8]) -> Bool {
        guard sets[id] != bytes else { return false }
        sets[id] = bytes
        return true
    }
}

/// Where HEVC parameter sets go into an Annex B access unit (as FFmpeg's hevc_mp4toannexb decides): every known VPS,
/// SPS and PPS right before the first IRAP picture of an access unit that has not carried all three by then. Fed the
/// access unit's NAL units in order; the parameter sets it carries are stored as they pass.
struct HEVCParameterSetInsertionScan {
    private var seen = Set<HEVCNALUnitType>()
    /// True once an IRAP picture has been seen.
    private(set) var isKeyframe = false

    /// Whether the known parameter sets go before this NAL unit.
    mutating func observe(_ nalUnit: some Collection<UInt8>, storingInto sets: inout HEVCParameterSets) throws -> Bool {
        guard let first = nalUnit.first else { return false }
        let type = HEVCNALUnitHeader.type(ofFirstByte: first)
        if type.isParameterSet {
            _ = try sets.store(nalUnit)
            seen.insert(type)
            return false
        }
        guard type.isIRAP, !isKeyframe else { return false }
        isKeyframe = true
        return seen.count < 3
    }
}

