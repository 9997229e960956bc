// ISO/IEC 14496-15 (2022) §8.3.2 HEVC samples with the §8.3.3 record → ITU-T H.265 Annex B byte stream, inserting
// parameter sets before IRAP pictures as FFmpeg's hevc_mp4toannexb does (Annex B has no out-of-band configuration,
// so a decoder joining at an IRAP picture needs the VPS, SPS and PPS right before it).

/// Converts length-prefixed HEVC samples to Annex B (4-byte start codes), injecting VPS/SPS/PPS before the first IRAP
/// NAL unit of a sample that has not carried all three by then.
///
/// In-band parameter sets replace the record's of the same id from then on; `update(record:)` takes a new record.
public struct HVCCToAnnexBConverter: Sendable {
    /// The configuration record in use.
    public private(set) var record: HEVCDecoderConfigurationRecord
    /// What is injected: the record's parameter sets, overridden by in-band ones.
    private var parameterSets: HEVCParameterSets
    /// The record's own parameter sets, restored by `reset()`.
    private var recordParameterSets: HEVCParameterSets

    /// A converter for samples described by `record`; its parameter sets must carry readable ids.
    public init(record: HEVCDecoderConfigurationRecord) throws {
        try AVCC.validate(lengthSize: record.nalUnitLengthSize)
        self.record = record
        parameterSets = try HEVCParameterSets(record: record)
        recordParameterSets = parameterSets
    }

    /// Uses a new record (new extradata mid-stream) from the next sample on.
    public mutating func update(record: HEVCDecoderConfigurationRecord) throws {
        self = try HVCCToAnnexBConverter(record: record)
    }

    /// Forgets in-band parameter sets and goes back to the record's.
    public mutating func reset() {
        parameterSets = recordParameterSets
    }

    /// Appends the Annex B form of one sample to `output`; returns true when the sample holds an IRAP picture.
    /// A NAL unit length running past the sample throws `.truncated`; what was appended before stays.
    public mutating func convert(_ sample: UnsafeRawBufferPointer, into output: inout [UInt8]) throws -> Bool {
        output.reserveAdditional(sample.count + 128)
        var scan = HEVCParameterSetInsertionScan()
        try AVCC.forEachNALUnit(in: sample, lengthSize: record.nalUnitLengthSize) { range in
            let nalUnit = UnsafeRawBufferPointer(rebasing: sample[range])
            if try scan.observe(nalUnit, storingInto: &parameterSets) { parameterSets.appendAnnexB(into: &output) }
            output.append(contentsOf: AnnexB.startCode4)
            output.appendRaw(nalUnit)
        }
        return scan.isKeyframe
    }

    /// `convert` for an array: returns the Annex B bytes and whether the sample is a keyframe (IRAP).
    public mutating func convert(_ sample: [UInt8]) throws -> (bytes: [UInt8], isKeyframe: Bool) {
        var bytes: [UInt8] = []
        let isKeyframe = try sample.withUnsafeBytes { try convert($0, into: &bytes) }
        return (bytes, isKeyframe)
    }
}
