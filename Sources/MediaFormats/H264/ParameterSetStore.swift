// ITU-T H.264 (08/2021) §7.4.1.2.1: parameter sets are referenced by id; a later SPS or PPS with the same id
// replaces the earlier one. Shared by the Annex B ⇄ AVCC converters.

/// The latest SPS and PPS NAL units, kept by id, as the converters track them.
struct ParameterSetStore: Equatable, Sendable {
    /// Whole SPS NAL units by seq_parameter_set_id.
    private(set) var sequenceParameterSets: [Int: [UInt8]] = [:]
    /// Whole PPS NAL units by pic_parameter_set_id.
    private(set) var pictureParameterSets: [Int: [UInt8]] = [:]

    init() {}

    /// A store holding a record's parameter sets.
    init(record: AVCDecoderConfigurationRecord) throws {
        for sps in record.sequenceParameterSets { _ = try store(sps) }
        for pps in record.pictureParameterSets { _ = try store(pps) }
    }

    /// Both kinds are known, so a record can be built and an IDR can be decoded.
    var isComplete: Bool { !sequenceParameterSets.isEmpty && !pictureParameterSets.isEmpty }

    /// SPS NAL units in id order.
    var orderedSequenceParameterSets: [[UInt8]] { sequenceParameterSets.sorted { $0.key < $1.key }.map(\.value) }
    /// PPS NAL units in id order.
    var orderedPictureParameterSets: [[UInt8]] { pictureParameterSets.sorted { $0.key < $1.key }.map(\.value) }

    /// Keeps an SPS or PPS NAL unit by its id; returns true when it differs from the one held for that id.
    /// Other NAL unit types are ignored (false).
    mutating func store(_ nalUnit: some Collection<UInt8>) throws -> Bool {
        guard let first = nalUnit.first else { return false }
        switch NALUnitHeader(first).nalUnitType {
        case .sequenceParameterSet:
            let id = try SequenceParameterSet.id(ofNALUnit: nalUnit)
            if let held = sequenceParameterSets[id], held.elementsEqual(nalUnit) { return false }
            sequenceParameterSets[id] = Array(nalUnit)
            return true
        case .pictureParameterSet:
            let id = try PictureParameterSet.ids(ofNALUnit: nalUnit).id
            if let held = pictureParameterSets[id], held.elementsEqual(nalUnit) { return false }
            pictureParameterSets[id] = Array(nalUnit)
            return true
        default:
            return false
        }
    }

    /// Appends the SPS (when `sps`) and then the PPS (when `pps`) NAL units, each after a 4-byte start code.
    func appendAnnexB(sps: Bool, pps: Bool, into output: inout [UInt8]) {
        if sps { AnnexB.write(nalUnits: orderedSequenceParameterSets, into: &output) }
        if pps { AnnexB.write(nalUnits: orderedPictureParameterSets, into: &output) }
    }
}

extension Array where Element == UInt8 {
    /// Grows capacity geometrically before a known-size append, so per-sample reserves never go quadratic.
    @inline(__always)
    mutating func reserveAdditional(_ count: Int) {
        let needed = self.count + count
        if needed > capacity { reserveCapacity(Swift.max(needed, capacity * 2)) }
    }
}

/// One access unit's walk over its NAL units, shared by the two Annex B writers: in-band SPS/PPS are stored as
/// they pass, and the first IDR slice reports which parameter sets the access unit still lacks (those go in
/// right before it, as §7.4.1.2.3 needs the active SPS and PPS available at an IDR).
struct ParameterSetInsertionScan {
    private var spsSeen = false
    private var ppsSeen = false
    /// True once an IDR slice has been seen.
    private(set) var isKeyframe = false

    /// What to insert before this NAL unit: `nil` for nothing, else which of SPS and PPS are missing.
    mutating func observe(_ nalUnit: UnsafeRawBufferPointer, storingInto store: inout ParameterSetStore) throws -> (sps: Bool, pps: Bool)? {
        switch NALUnitType(rawValue: nalUnit[0] & 0x1F) {
        case .sequenceParameterSet:
            spsSeen = true
            _ = try store.store(nalUnit)
        case .pictureParameterSet:
            ppsSeen = true
            _ = try store.store(nalUnit)
        case .codedSliceIDR:
            defer { isKeyframe = true }
            // Only before the first IDR slice, and only what the access unit does not carry itself.
            if !isKeyframe && !(spsSeen && ppsSeen) { return (sps: !spsSeen, pps: !ppsSeen) }
        default:
            break
        }
        return nil
    }
}
