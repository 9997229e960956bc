// ITU-T H.264 (08/2021) Annex B byte stream, §7.4.1.2.3 (an IDR access unit needs its active SPS and PPS
// available): for Annex B input whose parameter sets came out of band (MPEG-TS or raw input after a demuxer
// moved them to extradata), or only at the start of the stream.

/// Passes Annex B access units through byte for byte, inserting known SPS/PPS before an IDR that lacks them.
public struct AnnexBParameterSetInjector: Sendable {
    /// What is injected: the extradata's parameter sets, overridden by in-band ones of the same id.
    private var parameterSets: ParameterSetStore
    private let seededParameterSets: ParameterSetStore

    /// An injector seeded with extradata (an AVCDecoderConfigurationRecord or Annex B SPS/PPS; may be empty).
    public init(extradata: [UInt8]) throws {
        var store = ParameterSetStore()
        if AVCDecoderConfigurationRecord.isAVCC(extradata) {
            store = try ParameterSetStore(record: AVCDecoderConfigurationRecord(parsing: extradata))
        } else {
            for nalUnit in AnnexB.nalUnits(in: extradata) { _ = try store.store(nalUnit) }
        }
        parameterSets = store
        seededParameterSets = store
    }

    /// Forgets in-band parameter sets and goes back to the extradata's.
    public mutating func reset() { parameterSets = seededParameterSets }

    /// Appends the access unit to `output`, with parameter sets inserted right before the start code of its first
    /// IDR slice when the access unit has not carried both an SPS and a PPS by then. Returns true for an IDR.
    public mutating func convert(_ accessUnit: UnsafeRawBufferPointer, into output: inout [UInt8]) throws -> Bool {
        output.reserveAdditional(accessUnit.count + 64)
        var scan = ParameterSetInsertionScan()
        var copied = 0
        try AnnexB.forEachNALUnit(in: accessUnit) { range in
            let nalUnit = UnsafeRawBufferPointer(rebasing: accessUnit[range])
            guard let missing = try scan.observe(nalUnit, storingInto: &parameterSets) else { return }
            // Every NAL unit range is preceded by the 3 bytes 00 00 01 the scanner found; zero bytes before
            // those (a 4-byte start code's zero_byte) stay with the IDR, so each NAL unit keeps its start code.
            var insertion = range.lowerBound - 3
            while insertion > copied && accessUnit[insertion - 1] == 0 { insertion -= 1 }
            output.appendRaw(UnsafeRawBufferPointer(rebasing: accessUnit[copied..<insertion]))
            parameterSets.appendAnnexB(sps: missing.sps, pps: missing.pps, into: &output)
            copied = insertion
        }
        output.appendRaw(UnsafeRawBufferPointer(rebasing: accessUnit[copied...]))
        return scan.isKeyframe
    }

    /// `convert` for an array: returns the bytes and whether the access unit is a keyframe.
    public mutating func convert(_ accessUnit: [UInt8]) throws -> (bytes: [UInt8], isKeyframe: Bool) {
        var bytes: [UInt8] = []
        let isKeyframe = try accessUnit.withUnsafeBytes { try convert($0, into: &bytes) }
        return (bytes, isKeyframe)
    }
}
