// ISO/IEC 14496-15 samples (§5.3.2 AVC, §8.3.2 HEVC) → ITU-T H.264 / H.265 Annex B byte stream, with the parameter
// sets a decoder joining at a keyframe needs inserted before it (as FFmpeg's h264_mp4toannexb and hevc_mp4toannexb do:
// Annex B has no out-of-band configuration). Both codecs walk the sample's length-prefixed NAL units and write each
// after a 4-byte start code; only where parameter sets go, and which, differ.

/// A length-prefixed → Annex B converter (`AVCCToAnnexBConverter`, `HVCCToAnnexBConverter`): the codec says what goes
/// before each NAL unit; the walk and the writing are shared.
public protocol LengthPrefixedToAnnexBConverter {
    /// The size of each NAL unit's length field in the samples (1, 2 or 4 bytes).
    var nalUnitLengthSize: Int { get }
    /// Starts a sample: forgets what the last one carried.
    mutating func beginSample()
    /// One NAL unit of the sample, before it is written: appends to `output` the parameter sets that must precede
    /// it, and keeps an in-band parameter set (it replaces the injected one of its id from then on).
    mutating func prepare(_ nalUnit: UnsafeRawBufferPointer, into output: inout [UInt8]) throws
    /// The sample begun last holds a picture a decoder can start at (IDR, IRAP).
    var sampleIsKeyframe: Bool { get }
}

extension LengthPrefixedToAnnexBConverter {
    /// Appends the Annex B form of one sample to `output`; returns true when it holds a keyframe. A NAL unit length
    /// running past the sample throws `.truncated`; what was appended before stays.
    public mutating func convert(_ sample: UnsafeRawBufferPointer, into output: inout [UInt8]) throws -> Bool {
        // Each length becomes a start code of the same size at most; the parameter sets come on top.
        output.reserveAdditional(sample.count + 128)
        beginSample()
        try AVCC.forEachNALUnit(in: sample, lengthSize: nalUnitLengthSize) { range in
            let nalUnit = UnsafeRawBufferPointer(rebasing: sample[range])
            try prepare(nalUnit, into: &output)
            output.append(contentsOf: AnnexB.startCode4)
            output.appendRaw(nalUnit)
        }
        return sampleIsKeyframe
    }

    /// `convert` for an array: returns the Annex B bytes and whether the sample is a keyframe.
    public mutating func convert(_ sample: [UInt8]) throws -> (bytes: [UInt8], isKeyframe: Bool) {
        var bytes: [UInt8] = []
        let isKeyframe = try sample.withUnsafeBytes { try convert($0, into: &bytes) }
        return (bytes, isKeyframe)
    }
}
