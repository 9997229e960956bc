// ISO/IEC 14496-15 (2019) §5.3.2 AVC samples with the §5.3.3.1 record → ITU-T H.264 (08/2021) Annex B byte stream,
// inserting parameter sets before IDR pictures as FFmpeg's h264_mp4toannexb does (Annex B has no out-of-band
// configuration, so every IDR must be preceded by the SPS and PPS it uses).

/// Converts AVCC samples to Annex B (4-byte start codes), injecting SPS/PPS before an IDR that lacks them.
///
/// In-band SPS/PPS replace the injected ones of the same id from then on; a new record takes over from the next
/// sample (its parameter sets are injected at the next IDR).
public struct AVCCToAnnexBConverter: Sendable {
    /// The configuration record in use.
    public private(set) var record: AVCDecoderConfigurationRecord
    /// What is injected: the record's parameter sets, overridden by in-band ones.
    private var parameterSets: ParameterSetStore
    /// The record's own parameter sets, restored by `reset()`.
    private var recordParameterSets: ParameterSetStore

    /// A converter for samples described by `record`; its parameter sets must carry readable ids.
    public init(record: AVCDecoderConfigurationRecord) throws {
        try AVCC.validate(lengthSize: record.nalUnitLengthSize)
        self.record = record
        parameterSets = try ParameterSetStore(record: record)
        recordParameterSets = parameterSets
    }

    /// Uses a new record (new extradata mid-stream): its length size from the next sample, its parameter sets
    /// before the next IDR, replacing in-band ones seen so far.
    public mutating func update(record: AVCDecoderConfigurationRecord) throws {
        self = try AVCCToAnnexBConverter(record: record)
    }

    /// Forgets in-band parameter sets and goes back to the record's.
    public mutating func reset() {
        parameterSets = recordParameterSets
    }

    /// Appends the Annex B form of one AVCC sample to `output`; returns true when the sample holds an IDR slice.
    /// A NAL unit length running past the sample throws `.truncated`; what was appended before stays.
    public mutating func convert(_ sample: UnsafeRawBufferPointer, into output: inout [UInt8]) throws -> Bool {
        output.reserveAdditional(sample.count + 64)
        var scan = ParameterSetInsertionScan()
        try AVCC.forEachNALUnit(in: sample, lengthSize: record.nalUnitLengthSize) { range in
            let nalUnit = UnsafeRawBufferPointer(rebasing: sample[range])
            if let missing = try scan.observe(nalUnit, storingInto: &parameterSets) {
                parameterSets.appendAnnexB(sps: missing.sps, pps: missing.pps, into: &output)
            }
            output.append(contentsOf: AnnexB.startCode4)
            output.appendRaw(nalUnit)
        }
        return scan.isKeyframe
    }

    /// `convert` for an array: returns the Annex B bytes and whether the sample is a keyframe.
    public mutating func convert(_ sample: [UInt8]) throws -> (bytes: [UInt8], isKeyframe: Bool) {
        var bytes: [UInt8] = []
        let isKeyframe = try sample.withUnsafeBytes { try convert($0, into: &bytes) }
        return (bytes, isKeyframe)
    }
}
