// Enhanced RTMP v2, ExVideoTagHeader / ExAudioTagHeader: "Process each ModEx data packet". While the packet type
// reads ModEx, a block follows: UI8 size − 1 (UI16 size − 1 when the UI8 is 255), the data, then one byte of
// 4 bits PacketModExType + 4 bits the next packet type.

/// The ModEx blocks of an ex-header, shared by audio and video (their layouts are the same).
enum FLVPacketModEx {
    /// What the ModEx blocks said, and the packet type that ended them.
    struct Result {
        /// The first packet type after the ModEx blocks (the low nibble of the byte after the last block).
        var packetType: UInt8
        /// TimestampOffsetNano of the last such block; nil when none was present.
        var timestampOffsetNanoseconds: UInt32?
    }

    /// Reads an ex-header's first byte (its low 4 bits the packet type) and the ModEx blocks after it; returns that
    /// byte too, whose high bits the caller reads.
    static func readHead(modEx: UInt8, from reader: inout ByteReader, structure: String) throws -> (first: UInt8, result: Result) {
        let first = try reader.readUInt8()
        return (first, try read(packetType: first & FLVEnhancedLimits.lowNibbleMask, modEx: modEx, from: &reader, structure: structure))
    }

    /// Reads ModEx blocks while the packet type is `modEx`; unknown ModEx types are skipped (their size is known).
    private static func read(packetType first: UInt8, modEx: UInt8, from reader: inout ByteReader, structure: String) throws -> Result {
        var result = Result(packetType: first, timestampOffsetNanoseconds: nil)
        while result.packetType == modEx {
            var size = Int(try reader.readUInt8()) + 1
            if size == FLVEnhancedLimits.modExShortSizeEscape { size = Int(try reader.readUInt16()) + 1 }
            let data = try reader.readBytes(size)
            // 4 bits PacketModExType + 4 bits the next packet type.
            let types = try reader.readUInt8()
            result.packetType = types & FLVEnhancedLimits.lowNibbleMask
            guard FLVPacketModExType(rawValue: types >> 4) == .timestampOffsetNano else { continue }
            guard data.count >= FLVEnhancedLimits.timestampOffsetNanoSize else {
                throw MediaFormatError.invalid(structure: structure, reason: "TimestampOffsetNano in \(data.count) bytes (needs 3)")
            }
            var dataReader = ByteReader(data)
            result.timestampOffsetNanoseconds = try dataReader.readUInt24()
        }
        return result
    }

    /// Appends the ex-header's first byte, `head` with a packet type in its low 4 bits: with an offset, ModEx then a
    /// TimestampOffsetNano block naming `packetType`; without one, `packetType` itself.
    static func writeHead(
        _ head: UInt8, packetType: UInt8, modEx: UInt8, timestampOffsetNanoseconds: UInt32?, into out: inout [UInt8]
    ) throws {
        guard let timestampOffsetNanoseconds else { return out.append(head | packetType) }
        out.append(head | modEx)
        try writeTimestampOffset(timestampOffsetNanoseconds, packetType: packetType, into: &out)
    }

    /// Appends one TimestampOffsetNano block followed by the byte naming `packetType` (the first byte, carrying
    /// the ModEx packet type, is the caller's). Offsets of a millisecond or more throw `.limitExceeded`.
    private static func writeTimestampOffset(_ nanoseconds: UInt32, packetType: UInt8, into out: inout [UInt8]) throws {
        guard nanoseconds <= FLVEnhancedLimits.maxTimestampOffsetNanoseconds else {
            throw MediaFormatError.limitExceeded(
                what: "TimestampOffsetNano", value: Int(nanoseconds), limit: Int(FLVEnhancedLimits.maxTimestampOffsetNanoseconds))
        }
        // UI8 modExDataSize − 1 (3 bytes → 2), then the UI24 offset.
        out.append(UInt8(FLVEnhancedLimits.timestampOffsetNanoSize - 1))
        out.appendUInt24(nanoseconds)
        // 4 bits PacketModExType (TimestampOffsetNano = 0) + 4 bits the real packet type.
        out.append(FLVPacketModExType.timestampOffsetNano.rawValue << 4 | packetType)
    }
}
