// ITU-T H.265 Annex B byte stream → ISO/IEC 14496-15 (2022) §8.3.2 HEVC samples with 4-byte lengths; VPS, SPS and
// PPS move out of the samples into the §8.3.3 HEVCDecoderConfigurationRecord built from them.

/// Converts Annex B access units to length-prefixed samples (4-byte lengths): drops access unit delimiters, takes
/// VPS/SPS/PPS out of the sample and keeps the latest of each id, from which it builds the hvcC record.
public struct AnnexBToHVCCConverter: AnnexBToLengthPrefixedConverter, Sendable {
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

    /// Classifies one NAL unit: a parameter set kept, a delimiter dropped, anything else written.
    public mutating func classify(_ nalUnit: UnsafeRawBufferPointer) throws -> LengthPrefixedNALUnit {
        let type = HEVCNALUnitHeader.type(ofFirstByte: nalUnit[0])
        if type == .accessUnitDelimiter { return .leftOut(parameterSetChanged: false) }  // MP4 and FLV samples carry none (14496-15 §8.3.2)
        if type.isParameterSet { return .leftOut(parameterSetChanged: try parameterSets.store(nalUnit.assumingMemoryBound(to: UInt8.self))) }
        return .written(isKeyframe: type.isIRAP)
    }

    /// The record rebuilt from the parameter sets held, once all three kinds are known.
    public mutating func parameterSetsChanged() throws {
        if parameterSets.isComplete { record = try makeRecord() }
    }

    private func makeRecord() throws -> HEVCDecoderConfigurationRecord {
        try HEVCDecoderConfigurationRecord(
            videoParameterSets: parameterSets.orderedVideoParameterSets,
            sequenceParameterSets: parameterSets.orderedSequenceParameterSets,
            pictureParameterSets: parameterSets.orderedPictureParameterSets,
            nalUnitLengthSize: Self.nalUnitLengthSize)
    }
}
