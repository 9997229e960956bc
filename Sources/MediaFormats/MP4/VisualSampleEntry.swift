// ISO/IEC 14496-12 (2022) §8.5.2.2 SampleEntry and §12.1.3 VisualSampleEntry; the entries and their configuration
// boxes: ISO/IEC 14496-15 (2022) §5.4.2 'avc1' + 'avcC', §8.4.1 'hvc1' + 'hvcC', AV1 Codec ISO Media File Format
// Binding §2.2 'av01' + 'av1C', VP Codec ISO Media File Format Binding §2.1-2.2 'vp09' and 'vp08' + 'vpcC'.

/// A video sample entry (`avc1`, `hvc1`, `av01`, `vp09`, `vp08`) with its decoder configuration box.
public struct VisualSampleEntry: MP4SampleEntry, Equatable {
    /// The entry's type, which names the codec and how parameter sets are carried.
    public var boxType: MP4FourCC
    /// Coded picture size in pixels.
    public var width: Int
    public var height: Int
    /// The codec configuration box (`avcC`, `hvcC`, `av1C`, `vpcC`).
    public var configuration: MP4OpaqueBox

    /// H.264 with parameter sets in avcC (in-band copies are allowed).
    public static let avc1: MP4FourCC = "avc1"
    /// HEVC with parameter sets only in hvcC.
    public static let hvc1: MP4FourCC = "hvc1"
    /// AV1.
    public static let av01: MP4FourCC = "av01"
    /// VP9 (a sample is a frame, or a superframe holding a picture's frames).
    public static let vp09: MP4FourCC = "vp09"
    /// VP8 (a sample is a frame).
    public static let vp08: MP4FourCC = "vp08"
    /// The 16-bit width and height fields (and the integer part of tkhd's 16.16 ones).
    public static let maxDimension = 0xFFFF
    /// SampleEntry (6 reserved + data_reference_index) + the VisualSampleEntry fields before its child boxes.
    public static let fixedSize = 78
    /// 72 dpi in 16.16 fixed point, the value §12.1.3.2 requires.
    static let resolution72DPI: UInt32 = 0x0048_0000
    /// depth: colour with no alpha.
    static let depthColour: UInt16 = 0x0018
    /// compressorname: a 32-byte Pascal string, left empty.
    static let compressorNameSize = 32

    /// An entry from its fields; a size outside 16 bits throws.
    public init(type: MP4FourCC, width: Int, height: Int, configuration: MP4OpaqueBox) throws {
        try Self.checkPictureSize(width: width, height: height, of: type)
        (boxType, self.width, self.height, self.configuration) = (type, width, height, configuration)
    }

    /// Throws unless `width` and `height` fit the 16-bit fields of `box` (a sample entry or `tkhd`).
    static func checkPictureSize(width: Int, height: Int, of box: MP4FourCC) throws {
        for dimension in [width, height] where !(0...maxDimension).contains(dimension) {
            throw MediaFormatError.limitExceeded(what: "'\(box)' width or height", value: dimension, limit: maxDimension)
        }
    }

    public var configurationBox: any MP4Box { configuration }

    public func writeEntryFields(into out: inout [UInt8]) {
        out.appendUInt16(0)  // pre_defined
        out.appendUInt16(0)  // reserved
        out.append(contentsOf: repeatElement(0, count: 12))  // pre_defined 3 × 32 bits
        out.appendUInt16(UInt16(width))  // checked against maxDimension
        out.appendUInt16(UInt16(height))
        out.appendUInt32(Self.resolution72DPI)  // horizresolution
        out.appendUInt32(Self.resolution72DPI)  // vertresolution
        out.appendUInt32(0)  // reserved
        out.appendUInt16(1)  // frame_count: one frame per sample
        out.append(contentsOf: repeatElement(0, count: Self.compressorNameSize))
        out.appendUInt16(Self.depthColour)
        out.appendUInt16(0xFFFF)  // pre_defined = −1
    }
}

/// §8.5.2.2 SampleEntry: 6 reserved bytes and data_reference_index, the fields of the entry's kind (visual, audio),
/// then its boxes (the decoder configuration).
public protocol MP4SampleEntry: MP4Box {
    /// SampleEntry + the kind's fields: the payload bytes before the configuration box.
    static var fixedSize: Int { get }
    /// The decoder configuration box.
    var configurationBox: any MP4Box { get }
    /// Appends the kind's fields (after data_reference_index).
    func writeEntryFields(into out: inout [UInt8])
}

extension MP4SampleEntry {
    public var payloadSize: Int { Self.fixedSize + configurationBox.size }

    public func writePayload(into out: inout [UInt8]) throws {
        out.append(contentsOf: repeatElement(0, count: 6))  // reserved
        out.appendUInt16(1)  // data_reference_index: the one `dref` entry, this file
        writeEntryFields(into: &out)
        try configurationBox.write(into: &out)
    }
}
