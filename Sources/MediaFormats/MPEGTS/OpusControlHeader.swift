// The Opus-in-MPEG-2-TS mapping's opus_control_header, in front of every Opus packet in a PES payload:
// 11 bits control_header_prefix (0x3FF) + start_trim_flag + end_trim_flag + control_extension_flag + 2 bits reserved,
// au_size as a run of 0xFF bytes ended by a byte below 0xFF, then start_trim and end_trim (3 bits reserved + 13 bits,
// in 48 kHz samples) when flagged, then control_extension_length and its bytes when flagged.

/// The header that frames one Opus packet (access unit) inside a TS PES payload.
public struct OpusControlHeader: Sendable, Equatable {
    /// control_header_prefix.
    public static let prefix: UInt16 = 0x3FF
    /// Trim values are 13 bits.
    public static let maxTrim: UInt16 = 0x1FFF

    /// au_size: the Opus packet's length in bytes.
    public var accessUnitSize: Int
    /// start_trim: samples (48 kHz) to drop from the start of the decoded packet.
    public var startTrim: UInt16?
    /// end_trim: samples (48 kHz) to drop from the end of the decoded packet.
    public var endTrim: UInt16?
    /// control_extension bytes, kept as read.
    public var controlExtension: [UInt8]?
    /// The header's length in bytes.
    public private(set) var encodedLength: Int

    /// A header for an Opus packet of `accessUnitSize` bytes; a trim over 13 bits is a programmer error.
    public init(accessUnitSize: Int, startTrim: UInt16? = nil, endTrim: UInt16? = nil) {
        precondition(accessUnitSize >= 0 && (startTrim ?? 0) <= Self.maxTrim && (endTrim ?? 0) <= Self.maxTrim,
                     "au_size is not negative; trims are 13 bits")
        self.accessUnitSize = accessUnitSize
        self.startTrim = startTrim
        self.endTrim = endTrim
        controlExtension = nil
        encodedLength = 2 + accessUnitSize / 255 + 1 + (startTrim == nil ? 0 : 2) + (endTrim == nil ? 0 : 2)
    }

    /// Parses the header at the start of `bytes`.
    public init(parsing bytes: ArraySlice<UInt8>) throws {
        var reader = ByteReader(bytes)
        let first = try reader.readUInt16()
        guard first >> 5 == Self.prefix else {
            throw MediaFormatError.invalid(structure: "opus_control_header", reason: "control_header_prefix is not 0x3ff")
        }
        var size = 0
        var byte: UInt8
        repeat {
            byte = try reader.readUInt8()
            size += Int(byte)
        } while byte == 0xFF
        accessUnitSize = size
        startTrim = first & 0x10 != 0 ? try reader.readUInt16() & Self.maxTrim : nil
        endTrim = first & 0x08 != 0 ? try reader.readUInt16() & Self.maxTrim : nil
        controlExtension = first & 0x04 != 0 ? Array(try reader.readBytes(Int(try reader.readUInt8()))) : nil
        encodedLength = reader.offset
    }

    /// Appends the header.
    public func write(into out: inout [UInt8]) {
        out.appendUInt16(Self.prefix << 5 | (startTrim == nil ? 0 : 0x10) | (endTrim == nil ? 0 : 0x08)
                         | (controlExtension == nil ? 0 : 0x04))
        out.append(contentsOf: repeatElement(0xFF, count: accessUnitSize / 255))
        out.append(UInt8(accessUnitSize % 255))
        // 3 bits reserved (000) + 13 bits trim.
        if let startTrim { out.appendUInt16(startTrim) }
        if let endTrim { out.appendUInt16(endTrim) }
        if let controlExtension {
            out.append(UInt8(truncatingIfNeeded: controlExtension.count))
            out += controlExtension
        }
    }
}
