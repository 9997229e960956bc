import MediaFormats

/// A video stream's access units as an Annex B byte stream (start codes), whatever the input's bitstream: AVCC and
/// HVCC samples are converted with their parameter sets inserted before every IDR (H.264) or IRAP picture (HEVC)
/// that lacks them; H.264 Annex B passes through with the same insertion. What `.h264`/`.h265` files and MPEG-TS take.
package struct AnnexBConversion {
    private enum Conversion {
        case fromAVCC(AVCCToAnnexBConverter)
        case passThrough(AnnexBParameterSetInjector)
        case fromHVCC(HVCCToAnnexBConverter)
    }

    private var conversion: Conversion

    /// A conversion for `bitstream`; AV1, VP9 and VP8 have no Annex B byte stream and throw.
    package init(_ bitstream: VideoBitstream) throws {
        conversion = try AnnexBConversion.conversion(for: bitstream)
    }

    private static func conversion(for bitstream: VideoBitstream) throws -> Conversion {
        switch bitstream {
        case let .avcc(record): return .fromAVCC(try AVCCToAnnexBConverter(record: record))
        case let .annexB(extradata): return .passThrough(try AnnexBParameterSetInjector(extradata: extradata))
        case let .hvcc(record): return .fromHVCC(try HVCCToAnnexBConverter(record: record))
        case .av1, .vp9, .vp8:
            throw MediaFormatError.unsupported(structure: "Annex B output", reason: "\(bitstream.codecName) has no Annex B byte stream")
        }
    }

    /// A new configuration from the packet it applies to (new extradata mid-stream).
    package mutating func update(to bitstream: VideoBitstream) throws {
        switch (conversion, bitstream) {
        case (.fromAVCC(var converter), let .avcc(record)):
            try converter.update(record: record)
            conversion = .fromAVCC(converter)
        default:
            conversion = try AnnexBConversion.conversion(for: bitstream)
        }
    }

    /// Appends one access unit in Annex B form; returns true when it holds an IDR or IRAP picture.
    package mutating func convert(_ sample: UnsafeRawBufferPointer, into output: inout [UInt8]) throws -> Bool {
        switch conversion {
        case var .fromAVCC(converter):
            let isKeyframe = try converter.convert(sample, into: &output)
            conversion = .fromAVCC(converter)
            return isKeyframe
        case var .passThrough(injector):
            let isKeyframe = try injector.convert(sample, into: &output)
            conversion = .passThrough(injector)
            return isKeyframe
        case var .fromHVCC(converter):
            let isKeyframe = try converter.convert(sample, into: &output)
            conversion = .fromHVCC(converter)
            return isKeyframe
        }
    }
}
