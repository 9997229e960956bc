// ISO/IEC 14496-12 (2022) §4.2 Object structure: a box starts with a 32-bit size and a type; size 1 means a 64-bit
// largesize follows, size 0 means the box runs to the end of the file, type 'uuid' adds a 16-byte usertype. A FullBox
// adds an 8-bit version and 24 bits of flags.

/// The header in front of every box.
public struct MP4BoxHeader: Sendable, Equatable {
    /// The box type.
    public var type: MP4FourCC
    /// The whole box (header included); nil when the size field is 0, "to the end of the file".
    public var boxSize: UInt64?
    /// 8, 16 with a largesize, 24 or 32 with a 'uuid' usertype.
    public var headerSize: Int

    /// size + type.
    public static let compactSize = 8
    /// size + type + largesize.
    public static let largeSize = 16
    /// The usertype of a 'uuid' box.
    public static let userTypeSize = 16
    /// The largest box a 32-bit size field can describe; a larger one needs largesize.
    public static let maxCompactBoxSize = UInt64(UInt32.max)
    /// size field value: the box extends to the end of the file.
    public static let sizeToEnd: UInt32 = 0
    /// size field value: a 64-bit largesize follows the type.
    public static let sizeInLargeSize: UInt32 = 1
    /// version (8 bits) + flags (24 bits) of a FullBox.
    public static let fullBoxFieldsSize = 4
    /// The type whose header carries a usertype.
    public static let uuidType: MP4FourCC = "uuid"

    /// The header of a box of `type` whose payload is `payloadSize` bytes: 8 bytes when the box fits the 32-bit size,
    /// 16 otherwise.
    public init(type: MP4FourCC, payloadSize: Int) {
        let compact = UInt64(Self.compactSize) + UInt64(payloadSize)
        self.type = type
        if compact <= Self.maxCompactBoxSize {
            boxSize = compact
            headerSize = Self.compactSize
        } else {
            boxSize = UInt64(Self.largeSize) + UInt64(payloadSize)
            headerSize = Self.largeSize
        }
    }

    /// Bytes a header needs in front of `payloadSize` bytes.
    public static func size(forPayload payloadSize: Int) -> Int {
        UInt64(compactSize) + UInt64(payloadSize) <= maxCompactBoxSize ? compactSize : largeSize
    }

    /// Reads a header (usertype skipped); the reader advances only on success.
    public init(parsing reader: inout ByteReader) throws {
        var r = reader
        let size32 = try r.readUInt32()
        type = MP4FourCC(rawValue: try r.readUInt32())
        headerSize = Self.compactSize
        switch size32 {
        case Self.sizeToEnd:
            boxSize = nil
        case Self.sizeInLargeSize:
            let large = try r.readUInt64()
            headerSize = Self.largeSize
            boxSize = large
        default:
            boxSize = UInt64(size32)
        }
        if type == Self.uuidType {
            try r.skip(Self.userTypeSize)
            headerSize += Self.userTypeSize
        }
        if let boxSize, boxSize < UInt64(headerSize) {
            throw MediaFormatError.invalid(
                structure: "box header", reason: "'\(type)' size \(boxSize) is smaller than its \(headerSize)-byte header")
        }
        reader = r
    }

    /// Appends size, type and (for a box over 4 GiB − 1) largesize. A 'uuid' header is not written here.
    public func write(into out: inout [UInt8]) {
        let size = boxSize ?? 0
        if headerSize == Self.largeSize {
            out.appendUInt32(Self.sizeInLargeSize)
            out.appendFourCC(type)
            out.appendUInt64(size)
        } else {
            out.appendUInt32(UInt32(truncatingIfNeeded: size))  // ≤ maxCompactBoxSize by construction
            out.appendFourCC(type)
        }
    }

    /// Appends a FullBox's version (8 bits) and flags (24 bits).
    public static func writeFullBoxFields(version: UInt8, flags: UInt32, into out: inout [UInt8]) {
        out.append(version)
        out.appendUInt24(flags)
    }

}

/// The payload of a FullBox being read: its version and flags, and a reader over what follows them.
public struct MP4FullBoxPayload: Sendable {
    public let version: UInt8
    public let flags: UInt32
    /// Positioned after the flags.
    public var reader: ByteReader

    /// Reads the version and flags at the start of `payload`.
    public init(_ payload: ArraySlice<UInt8>) throws {
        reader = ByteReader(payload)
        version = try reader.readUInt8()
        flags = try reader.readUInt24()
    }
}
