// ISO/IEC 14496-12 (2022) §4.3 File Type Box ('ftyp') and §8.16.2 Segment Type Box ('styp'): the same payload, a
// major brand, a minor version and the compatible brands. Brand choice: ISO/IEC 23000-19 (CMAF) §7.2.

/// `ftyp` at the start of an init segment, or `styp` at the start of a media segment.
public struct FileTypeBox: MP4Box, Equatable {
    /// 'ftyp' or 'styp'.
    public var boxType: MP4FourCC
    public var majorBrand: MP4FourCC
    public var minorVersion: UInt32
    public var compatibleBrands: [MP4FourCC]

    /// The two box types with this payload: file type (init segment) and segment type (media segment).
    public static let fileType: MP4FourCC = "ftyp", segmentType: MP4FourCC = "styp"
    /// ISO base media brand for tfdt, default-base-is-moof and signed composition offsets (trun version 1).
    public static let iso6: MP4FourCC = "iso6"
    /// CMAF structural brand: claimed only for a single-track file, since a CMAF track file holds one track.
    public static let cmfc: MP4FourCC = "cmfc"
    /// Media segment brand of ISO/IEC 23009-1 §6.3.4.2 (a segment of one or more whole movie fragments), and the
    /// CMAF segment brand.
    public static let msdh: MP4FourCC = "msdh", cmfs: MP4FourCC = "cmfs"
    /// major_brand + minor_version.
    static let fixedSize = 8

    /// A box from its fields.
    public init(boxType: MP4FourCC = Self.fileType, majorBrand: MP4FourCC, minorVersion: UInt32 = 0,
                compatibleBrands: [MP4FourCC]) {
        self.boxType = boxType
        self.majorBrand = majorBrand
        self.minorVersion = minorVersion
        self.compatibleBrands = compatibleBrands
    }

    /// The `ftyp` of a fragmented init segment: iso6 (the fragment features used: tfdt, default-base-is-moof, trun
    /// version 1), plus cmfc when the file holds a single track.
    public static func initSegment(singleTrack: Bool) -> FileTypeBox {
        FileTypeBox(majorBrand: iso6, compatibleBrands: singleTrack ? [iso6, cmfc] : [iso6])
    }

    /// The `styp` of a media segment (HLS, DASH): msdh, plus cmfs for a single-track segment.
    public static func mediaSegment(singleTrack: Bool) -> FileTypeBox {
        FileTypeBox(boxType: segmentType, majorBrand: msdh, compatibleBrands: singleTrack ? [msdh, cmfs] : [msdh])
    }

    /// Parses a payload of either type.
    public init(boxType: MP4FourCC = Self.fileType, parsing payload: ArraySlice<UInt8>) throws {
        var reader = ByteReader(payload)
        self.boxType = boxType
        majorBrand = MP4FourCC(rawValue: try reader.readUInt32())
        minorVersion = try reader.readUInt32()
        guard reader.remaining % 4 == 0 else {
            throw MediaFormatError.invalid(structure: "'\(boxType)'", reason: "\(reader.remaining) bytes of brands")
        }
        compatibleBrands = []
        while !reader.isAtEnd { compatibleBrands.append(MP4FourCC(rawValue: try reader.readUInt32())) }
    }

    public var payloadSize: Int { Self.fixedSize + 4 * compatibleBrands.count }

    public func writePayload(into out: inout [UInt8]) {
        out.appendFourCC(majorBrand)
        out.appendUInt32(minorVersion)
        for brand in compatibleBrands { out.appendFourCC(brand) }
    }
}
