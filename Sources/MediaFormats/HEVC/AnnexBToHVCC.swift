// ITU-T H.265 Annex B byte stream → ISO/IEC 14496-15 (2022) §8.3.2 HEVC samples with 4-byte lengths; VPS, SPS and
// PPS move out of the samples into the §8.3.3 HEVCDecoderConfigurationRecord built from them.

/// Converts Annex B access units to length-prefixed samples (4-byte lengths): drops access unit delimiters, takes
/// VPS/SPS/PPS out of the sample and keeps the latest of each id, from which it builds the hvcC record.
public struct AnnexBToHVCCConverter: Sendable {
    /// The record for the parameter sets seen so far (nalUnitLengthSize 4); nil until a VPS, SPS and PPS are known.
    public private(set) var record: HEVCDecoderConfigurationRecord?
    private var parameterSets = HEVCParameterSets()
    /// What `reset()` returns to: the state right after `init`.
    private var seededRecord: HEVCDecoderConfigurationRecord?
    private var seededParameterSets = HEVCParameterSets()

    /// The NAL unit length size of the samples written.
    public static let nalUnitLengthSize = 4

    /// A converter that knows no parameter sets yet.
    public init() {}

    /// A converter seeded with extradata, an hvcC record or Annex B VPS/SPS/PPS; in-band parameter sets equal to
    /// these do not count as a change.
    public init(extradata: [UInt8]) throws {
        if HEVCDecoderConfigurationRecord.isHVCC(extradata) {
            var seed = try HEVCDecoderConfigurationRecord(parsing: extradata)
            seed.nalUnitLengthSize = Self.nalUnitLengthSize
            parameterSets = try HEVCParameterSets(record: seed)
            record = seed
        } else {
            for nalUnit in AnnexB.nalUnits(in: extradata) { _ = try parameterSets.store(nalUnit) }
            record = try parameterSets.isComplete ? makeRecord() : nil
        }
        seededRecord = record
        seededParameterSets = parameterSets
    }

    /// Returns to the state right after `init` (seeded parameter sets kept, in-band ones forgotten).
    public mutating func reset() {
        record = seededRecord
        parameterSets = seededParameterSets
    }

    /// Appends the length-prefixed form of one Annex B access unit to `output`.
    public mutating func convert(_ accessUnit: UnsafeRawBufferPointer, into output: inout [UInt8]) throws -> AVCCConversion {
        // 4-byte lengths replace start codes of at least 3 bytes: one extra byte per NAL unit at most.
        output.reserveAdditional(accessUnit.count + accessUnit.count / 64 + 16)
        var isKeyframe = false
        var changed = false
        try AnnexB.forEachNALUnit(in: accessUnit) { range in
            try take(UnsafeRawBufferPointer(rebasing: accessUnit[range]), isKeyframe: &isKeyframe, changed: &changed, into: &output)
        }
        if changed && parameterSets.isComplete { record = try makeRecord() }
        return AVCCConversion(isKeyframe: isKeyframe, parameterSetsChanged: changed)
    }

    /// `convert` for an access unit already split into NAL units (an RTP depacketizer's): no start codes to scan for.
    public mutating func convert(nalUnits: [[UInt8]], into output: inout [UInt8]) throws -> AVCCConversion {
        output.reserveAdditional(nalUnits.reduce(0) { $0 + $1.count + 4 })
        var isKeyframe = false
        var changed = false
        for nalUnit in nalUnits where !nalUnit.isEmpty {
            try nalUnit.withUnsafeBytes { try take($0, isKeyframe: &isKeyframe, changed: &changed, into: &output) }
        }
        if changed && parameterSets.isComplete { record = try makeRecord() }
        return AVCCConversion(isKeyframe: isKeyframe, parameterSetsChanged: changed)
    }

    /// One NAL unit: a parameter set kept, a delimiter dropped, anything else appended with its length.
    private mutating func take(_ nalUnit: UnsafeRawBufferPointer, isKeyframe: inout Bool, changed: inout Bool, into output: inout [UInt8]) throws {
        let type = HEVCNALUnitHeader.type(ofFirstByte: nalUnit[0])
        if type == .accessUnitDelimiter { return }  // MP4 and FLV samples carry none (14496-15 §8.3.2)
        if type.isParameterSet {
            if try parameterSets.store(nalUnit.assumingMemoryBound(to: UInt8.self)) { changed = true }
            return
        }
        if type.isIRAP { isKeyframe = true }
        output.appendUInt32(UInt32(truncatingIfNeeded: nalUnit.count))
        output.appendRaw(nalUnit)
    }

    /// `convert` for an array: returns the sample and the flags.
    public mutating func convert(_ accessUnit: [UInt8]) throws -> (sample: [UInt8], conversion: AVCCConversion) {
        var sample: [UInt8] = []
        let conversion = try accessUnit.withUnsafeBytes { try convert($0, into: &sample) }
        return (sample, conversion)
    }

    private func makeRecord() throws -> HEVCDecoderConfigurationRecord {
        try HEVCDecoderConfigurationRecord(
            videoParameterSets: parameterSets.orderedVideoParameterSets,
            sequenceParameterSets: parameterSets.orderedSequenceParameterSets,
            pictureParameterSets: parameterSets.orderedPictureParameterSets,
            nalUnitLengthSize: Self.nalUnitLengthSize)
    }
}
