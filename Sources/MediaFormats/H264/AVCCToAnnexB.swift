// ISO/IEC 14496-15 (2019) §5.3.2 AVC samples with the §5.3.3.1 record → ITU-T H.264 (08/2021) Annex B byte stream,
// inserting parameter sets before IDR pictures as FFmpeg's h264_mp4toannexb does (every IDR must be preceded by the
// SPS and PPS it uses).

/// Converts AVCC samples to Annex B (4-byte start codes), injecting the SPS and PPS an IDR access unit lacks right
/// before its first IDR slice.
///
/// In-band SPS/PPS replace the injected ones of the same id from then on; a new record takes over from the next
/// sample (its parameter sets are injected at the next IDR).
public struct AVCCToAnnexBConverter: LengthPrefixedToAnnexBConverter, Sendable {
    public let nalUnitLengthSize: Int
    /// What is injected: the record's parameter sets, overridden by in-band ones.
    private var parameterSets: ParameterSetStore
    /// The record's own parameter sets, restored by `reset()`.
    private let recordParameterSets: ParameterSetStore
    private var scan = ParameterSetInsertionScan()

    /// A converter for samples described by `record`; its parameter sets must carry readable ids.
    public init(record: AVCDecoderConfigurationRecord) throws {
        try AVCC.validate(lengthSize: record.nalUnitLengthSize)
        nalUnitLengthSize = record.nalUnitLengthSize
        parameterSets = try ParameterSetStore(record: record)
        recordParameterSets = parameterSets
    }

    /// Forgets in-band parameter sets and goes back to the record's.
    public mutating func reset() { parameterSets = recordParameterSets }

    public mutating func beginSample() { scan = ParameterSetInsertionScan() }

    public var sampleIsKeyframe: Bool { scan.isKeyframe }

    public mutating func prepare(_ nalUnit: UnsafeRawBufferPointer, into output: inout [UInt8]) throws {
        if let missing = try scan.observe(nalUnit, storingInto: &parameterSets) {
            parameterSets.appendAnnexB(sps: missing.sps, pps: missing.pps, into: &output)
        }
    }
}
