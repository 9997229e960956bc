// Adobe Flash Video File Format Specification v10.1, §E.4.1 FLV Tag (the 11 bytes before the tag data).

/// The header of every FLV tag: type, data size, timestamp, stream ID.
public struct FLVTagHeader: Sendable, Equatable {
    /// TagType.
    public let tagType: FLVTagType
    /// DataSize: bytes of tag data after this header (0...`FLVLimits.maxTagDataSize`).
    public let dataSize: Int
    /// Timestamp and TimestampExtended joined (the extension byte is the upper 8 bits): milliseconds modulo
    /// 2^32, compared as `FLVTimestamp` (serial-number arithmetic) where the timeline may wrap.
    public let timestamp: UInt32
    /// StreamID: always 0 in files.
    public let streamID: UInt32

    /// A header; `dataSize` must fit 24 bits (callers check it against `FLVLimits.maxTagDataSize` first).
    public init(tagType: FLVTagType, dataSize: Int, timestamp: UInt32, streamID: UInt32 = 0) {
        precondition((0...FLVLimits.maxTagDataSize).contains(dataSize), "dataSize must fit 24 bits")
        precondition(streamID <= 0xFF_FFFF, "streamID must fit 24 bits")
        self.tagType = tagType
        self.dataSize = dataSize
        self.timestamp = timestamp
        self.streamID = streamID
    }

    /// Parses 11 bytes; an unknown TagType or the Filter bit (encrypted tags) is refused.
    public init(parsing reader: inout ByteReader) throws {
        var r = reader
        // 2 bits reserved + 1 bit Filter + 5 bits TagType.
        let first = try r.readUInt8()
        let dataSize = Int(try r.readUInt24())
        let lower = try r.readUInt24()
        let extended = try r.readUInt8()
        let streamID = try r.readUInt24()
        guard first & FLVTagTypeBits.filterMask == 0 else {
            throw MediaFormatError.unsupported(structure: "FLV tag", reason: "Filter bit set (pre-processed tag)")
        }
        guard let tagType = FLVTagType(rawValue: first & FLVTagTypeBits.tagTypeMask) else {
            throw MediaFormatError.unsupported(
                structure: "FLV tag", reason: "TagType \(first & FLVTagTypeBits.tagTypeMask)")
        }
        self.tagType = tagType
        self.dataSize = dataSize
        self.timestamp = UInt32(extended) << 24 | lower
        self.streamID = streamID
        reader = r
    }

    /// Appends the 11 bytes: the low 24 timestamp bits, then the upper 8 in TimestampExtended.
    public func write(into out: inout [UInt8]) {
        let bits = timestamp
        // 2 bits reserved (00) + 1 bit Filter (0) + 5 bits TagType.
        out.append(tagType.rawValue)
        out.appendUInt24(UInt32(dataSize))
        out.appendUInt24(bits & 0xFF_FFFF)
        out.append(UInt8(truncatingIfNeeded: bits >> 24))
        out.appendUInt24(streamID)
    }
}
