// ITU-T H.264 / H.265 Annex B byte stream → ISO/IEC 14496-15 samples with 4-byte lengths (§5.3.2 AVC, §8.3.2 HEVC):
// both codecs scan for start codes, leave delimiters and parameter sets out of the sample and write the rest with
// its length; only what a NAL unit is, and the record built from the parameter sets, differ.

/// What a converter does with one NAL unit of an access unit.
public enum LengthPrefixedNALUnit: Equatable, Sendable {
    /// Left out of the sample: an access unit delimiter, or a parameter set kept for the record (`changed` when it
    /// differs from the one held for its id).
    case leftOut(parameterSetChanged: Bool)
    /// Written to the sample with its length; `isKeyframe` for a slice of a picture a decoder can start at.
    case written(isKeyframe: Bool)
}

/// An Annex B → length-prefixed converter (`AnnexBToAVCCConverter`, `AnnexBToHVCCConverter`): the codec classifies
/// each NAL unit and rebuilds its record; the scan, the writing and the flags are shared.
public protocol AnnexBToLengthPrefixedConverter {
    /// Classifies one NAL unit, storing it when it is a parameter set.
    mutating func classify(_ nalUnit: UnsafeRawBufferPointer) throws -> LengthPrefixedNALUnit
    /// Builds the record again from the parameter sets held, after an access unit changed one.
    mutating func parameterSetsChanged() throws
}

extension AnnexBToLengthPrefixedConverter {
    /// Appends the length-prefixed form of one Annex B access unit to `output`.
    ///
    /// Hot path: one scan for start codes and one copy per NAL unit; parameter sets are compared, not re-parsed,
    /// unless their bytes changed.
    public mutating func convert(_ accessUnit: UnsafeRawBufferPointer, into output: inout [UInt8]) throws -> AVCCConversion {
        // 4-byte lengths replace start codes of at least 3 bytes: one extra byte per NAL unit at most.
        output.reserveAdditional(accessUnit.count + accessUnit.count / 64 + 16)
        var conversion = AVCCConversion(isKeyframe: false, parameterSetsChanged: false)
        try AnnexB.forEachNALUnit(in: accessUnit) { range in
            try take(UnsafeRawBufferPointer(rebasing: accessUnit[range]), into: &output, noting: &conversion)
        }
        return try finish(conversion)
    }

    /// `convert` for an access unit already split into NAL units (an RTP depacketizer's): no start codes to scan for.
    public mutating func convert(nalUnits: [[UInt8]], into output: inout [UInt8]) throws -> AVCCConversion {
        output.reserveAdditional(nalUnits.reduce(0) { $0 + $1.count + 4 })
        var conversion = AVCCConversion(isKeyframe: false, parameterSetsChanged: false)
        for nalUnit in nalUnits where !nalUnit.isEmpty {
            try nalUnit.withUnsafeBytes { try take($0, into: &output, noting: &conversion) }
        }
        return try finish(conversion)
    }

    /// `convert` for an array: returns the sample and the flags.
    public mutating func convert(_ accessUnit: [UInt8]) throws -> (sample: [UInt8], conversion: AVCCConversion) {
        var sample: [UInt8] = []
        let conversion = try accessUnit.withUnsafeBytes { try convert($0, into: &sample) }
        return (sample, conversion)
    }

    /// One NAL unit: written with its 4-byte length unless the codec leaves it out.
    private mutating func take(_ nalUnit: UnsafeRawBufferPointer, into output: inout [UInt8], noting conversion: inout AVCCConversion) throws {
        switch try classify(nalUnit) {
        case let .leftOut(changed):
            if changed { conversion.parameterSetsChanged = true }
        case let .written(isKeyframe):
            if isKeyframe { conversion.isKeyframe = true }
            output.appendUInt32(UInt32(truncatingIfNeeded: nalUnit.count))
            output.appendRaw(nalUnit)
        }
    }

    private mutating func finish(_ conversion: AVCCConversion) throws -> AVCCConversion {
        if conversion.parameterSetsChanged { try parameterSetsChanged() }
        return conversion
    }
}
