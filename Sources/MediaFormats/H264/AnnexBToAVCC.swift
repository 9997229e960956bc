// ITU-T H.264 (08/2021) Annex B byte stream → ISO/IEC 14496-15 (2019) §5.3.2 AVC sample with 4-byte lengths;
// parameter sets move out of the samples into the §5.3.3.1 AVCDecoderConfigurationRecord.

/// What converting one access unit found.
public struct AVCCConversion: Equatable, Sendable {
    /// The access unit contains an IDR slice.
    public var isKeyframe: Bool
    /// An SPS or PPS in this access unit differed from the one held for its id (or was the first seen):
    /// a muxer writes a new sequence header before this sample.
    public var parameterSetsChanged: Bool

    /// A result from its flags.
    public init(isKeyframe: Bool, parameterSetsChanged: Bool) {
        self.isKeyframe = isKeyframe
        self.parameterSetsChanged = parameterSetsChanged
    }
}

/// Converts Annex B access units to AVCC samples (4-byte lengths): drops access unit delimiters, takes SPS and
/// PPS out of the sample and keeps the latest of each id, from which it builds the configuration record.
public struct AnnexBToAVCCConverter: Sendable {
    /// The record for the parameter sets seen so far (nalUnitLengthSize 4); nil until an SPS and a PPS are known.
    public private(set) var record: AVCDecoderConfigurationRecord?
    private var parameterSets = ParameterSetStore()
    /// What `reset()` returns to: the state right after `init`.
    private var seededRecord: AVCDecoderConfigurationRecord?
    private var seededParameterSets = ParameterSetStore()

    /// The NAL unit length size of the samples written.
    public static let nalUnitLengthSize = 4

    /// A converter that knows no parameter sets yet.
    public init() {}

    /// A converter seeded with extradata, either an AVCDecoderConfigurationRecord or Annex B SPS/PPS.
    /// In-band parameter sets equal to these do not count as a change.
    public init(extradata: [UInt8]) throws {
        var seed: AVCDecoderConfigurationRecord
        if AVCDecoderConfigurationRecord.isAVCC(extradata) {
            seed = try AVCDecoderConfigurationRecord(parsing: extradata)
        } else {
            seed = try AVCDecoderConfigurationRecord(annexB: extradata)
        }
        seed.nalUnitLengthSize = Self.nalUnitLengthSize
        parameterSets = try ParameterSetStore(record: seed)
        record = seed
        seededRecord = seed
        seededParameterSets = parameterSets
    }

    /// Returns to the state right after `init` (seeded parameter sets kept, in-band ones forgotten).
    public mutating func reset() {
        record = seededRecord
        parameterSets = seededParameterSets
    }

    /// Appends the AVCC form of one Annex B access unit to `output`.
    ///
    /// Hot path: one scan for start codes and one copy per NAL unit; parameter sets are compared, not re-parsed,
    /// unless their bytes changed.
    public mutating func convert(_ accessUnit: UnsafeRawBufferPointer, into output: inout [UInt8]) throws -> AVCCConversion {
        // 4-byte lengths replace start codes of at least 3 bytes: one extra byte per NAL unit at most.
        output.reserveAdditional(accessUnit.count + accessUnit.count / 64 + 16)
        var isKeyframe = false
        var changed = false
        try AnnexB.forEachNALUnit(in: accessUnit) { range in
            try take(UnsafeRawBufferPointer(rebasing: accessUnit[range]), isKeyframe: &isKeyframe, changed: &changed, into: &output)
        }
        return try finish(isKeyframe: isKeyframe, changed: changed)
    }

    /// `convert` for an access unit already split into NAL units (an RTP depacketizer's): no start codes to scan for.
    public mutating func convert(nalUnits: [[UInt8]], into output: inout [UInt8]) throws -> AVCCConversion {
        output.reserveAdditional(nalUnits.reduce(0) { $0 + $1.count + 4 })
        var isKeyframe = false
        var changed = false
        for nalUnit in nalUnits where !nalUnit.isEmpty {
            try nalUnit.withUnsafeBytes { try take($0, isKeyframe: &isKeyframe, changed: &changed, into: &output) }
        }
        return try finish(isKeyframe: isKeyframe, changed: changed)
    }

    /// One NAL unit: a parameter set kept, a delimiter dropped, anything else appended with its length.
    private mutating func take(_ nalUnit: UnsafeRawBufferPointer, isKeyframe: inout Bool, changed: inout Bool, into output: inout [UInt8]) throws {
        switch NALUnitType(rawValue: nalUnit[0] & 0x1F) {
        case .accessUnitDelimiter:
            return  // FLV and MP4 samples carry none (14496-15 §5.3.2)
        case .sequenceParameterSet, .pictureParameterSet:
            if try parameterSets.store(nalUnit) { changed = true }
            return
        case .codedSliceIDR:
            isKeyframe = true
        default:
            break
        }
        output.appendUInt32(UInt32(truncatingIfNeeded: nalUnit.count))
        output.appendRaw(nalUnit)
    }

    /// The record rebuilt when a parameter set changed, and the access unit's flags.
    private mutating func finish(isKeyframe: Bool, changed: Bool) throws -> AVCCConversion {
        if changed && parameterSets.isComplete {
            var rebuilt = try AVCDecoderConfigurationRecord(
                sequenceParameterSets: parameterSets.orderedSequenceParameterSets,
                pictureParameterSets: parameterSets.orderedPictureParameterSets,
                nalUnitLengthSize: Self.nalUnitLengthSize
            )
            // SPS extensions are not tracked in-band; keep the seeded ones if the profile still carries a trailer.
            if let seeded = record?.highProfileFields?.sequenceParameterSetExtensions, rebuilt.highProfileFields != nil {
                rebuilt.highProfileFields?.sequenceParameterSetExtensions = seeded
            }
            record = rebuilt
        }
        return AVCCConversion(isKeyframe: isKeyframe, parameterSetsChanged: changed)
    }

    /// `convert` for an array: returns the AVCC sample and the flags.
    public mutating func convert(_ accessUnit: [UInt8]) throws -> (sample: [UInt8], conversion: AVCCConversion) {
        var sample: [UInt8] = []
        let conversion = try accessUnit.withUnsafeBytes { try convert($0, into: &sample) }
        return (sample, conversion)
    }
}
