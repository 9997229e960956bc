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
public struct AnnexBToAVCCConverter: AnnexBToLengthPrefixedConverter, Sendable {
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

    /// Classifies one NAL unit: a parameter set kept, a delimiter dropped, anything else written.
    public mutating func classify(_ nalUnit: UnsafeRawBufferPointer) throws -> LengthPrefixedNALUnit {
        switch NALUnitType(rawValue: nalUnit[0] & 0x1F) {
        case .accessUnitDelimiter: .leftOut(parameterSetChanged: false)  // FLV and MP4 samples carry none (14496-15 §5.3.2)
        case .sequenceParameterSet, .pictureParameterSet: .leftOut(parameterSetChanged: try parameterSets.store(nalUnit))
        case .codedSliceIDR: .written(isKeyframe: true)
        default: .written(isKeyframe: false)
        }
    }

    /// The record rebuilt from the parameter sets held, once both kinds are known.
    public mutating func parameterSetsChanged() throws {
        guard parameterSets.isComplete else { return }
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
}
