import MediaFormats

/// A video stream's access units as an Annex B byte stream (start codes), whatever the input's bitstream: AVCC and
/// HVCC samples are converted with their parameter sets inserted before every IDR (H.264) or IRAP picture (HEVC)
/// that lacks them; H.264 Annex B passes through with the same insertion. What `.h264`/`.h265` files and MPEG-TS take.
package struct AnnexBConversion {
    /// `AVCCToAnnexBConverter`, `HVCCToAnnexBConverter` or `AnnexBParameterSetInjector`: held as itself (not in an
    /// enum's payload), so each access unit mutates it in place rather than a copy.
    private var converter: any AnnexBAccessUnitConverter

    /// A conversion for `bitstream`; AV1, VP9 and VP8 have no Annex B byte stream and throw.
    package init(_ bitstream: VideoBitstream) throws {
        converter = try AnnexBConversion.converter(for: bitstream)
    }

    private static func converter(for bitstream: VideoBitstream) throws -> any AnnexBAccessUnitConverter {
        switch bitstream {
        case let .avcc(record): return try AVCCToAnnexBConverter(record: record)
        case let .annexB(extradata): return try AnnexBParameterSetInjector(extradata: extradata)
        case let .hvcc(record): return try HVCCToAnnexBConverter(record: record)
        case .av1, .vp9, .vp8:
            throw MediaFormatError.unsupported(structure: "Annex B output", reason: "\(bitstream.codecName) has no Annex B byte stream")
        }
    }

    /// A new configuration from the packet it applies to (new extradata mid-stream): its parameter sets are injected
    /// from the next keyframe on, in place of those seen in band so far.
    package mutating func update(to bitstream: VideoBitstream) throws {
        converter = try AnnexBConversion.converter(for: bitstream)
    }

    /// Appends one access unit in Annex B form; returns true when it holds an IDR or IRAP picture.
    package mutating func convert(_ sample: UnsafeRawBufferPointer, into output: inout [UInt8]) throws -> Bool {
        try converter.convert(sample, into: &output)
    }
}

/// One access unit in, its Annex B form appended: what the three converters have in common.
protocol AnnexBAccessUnitConverter {
    mutating func convert(_ sample: UnsafeRawBufferPointer, into output: inout [UInt8]) throws -> Bool
}

extension AVCCToAnnexBConverter: AnnexBAccessUnitConverter {}
extension HVCCToAnnexBConverter: AnnexBAccessUnitConverter {}
extension AnnexBParameterSetInjector: AnnexBAccessUnitConverter {}
