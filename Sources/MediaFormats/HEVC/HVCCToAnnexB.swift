// ISO/IEC 14496-15 (2022) §8.3.2 HEVC samples with the §8.3.3 record → ITU-T H.265 Annex B byte stream, inserting
// parameter sets before IRAP pictures as FFmpeg's hevc_mp4toannexb does (a decoder joining at an IRAP picture needs
// the VPS, SPS and PPS right before it).

/// Converts length-prefixed HEVC samples to Annex B (4-byte start codes), injecting VPS/SPS/PPS before the first IRAP
/// NAL unit of a sample that has not carried all three by then.
///
/// In-band parameter sets replace the record's of the same id from then on; a new record is a new converter.
public struct HVCCToAnnexBConverter: LengthPrefixedToAnnexBConverter, Sendable {
    public let nalUnitLengthSize: Int
    /// What is injected: the record's parameter sets, overridden by in-band ones.
    private var parameterSets: HEVCParameterSets
    /// The record's own parameter sets, restored by `reset()`.
    private let recordParameterSets: HEVCParameterSets
    private var scan = HEVCParameterSetInsertionScan()

    /// A converter for samples described by `record`; its parameter sets must carry readable ids.
    public init(record: HEVCDecoderConfigurationRecord) throws {
        try AVCC.validate(lengthSize: record.nalUnitLengthSize)
        nalUnitLengthSize = record.nalUnitLengthSize
        parameterSets = try HEVCParameterSets(record: record)
        recordParameterSets = parameterSets
    }

    /// Forgets in-band parameter sets and goes back to the record's.
    public mutating func reset() { parameterSets = recordParameterSets }

    public mutating func beginSample() { scan = HEVCParameterSetInsertionScan() }

    public var sampleIsKeyframe: Bool { scan.isKeyframe }

    public mutating func prepare(_ nalUnit: UnsafeRawBufferPointer, into output: inout [UInt8]) throws {
        if try scan.observe(nalUnit, storingInto: &parameterSets) { parameterSets.appendAnnexB(into: &output) }
    }
}
