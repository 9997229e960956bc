// AV1 Bitstream & Decoding Process Specification §5.3 OBU syntax (obu_header, obu_extension_header, obu_size) and
// §6.2.2 obu_type semantics.

/// obu_type (§6.2.2), 4 bits.
/// Every 4-bit value is a case, so reading one cannot fail.
public enum AV1OBUType: UInt8, Sendable, CaseIterable {
    /// Reserved (0, and 9...14 below): decoders ignore these OBUs.
    case reserved0 = 0
    /// OBU_SEQUENCE_HEADER.
    case sequenceHeader = 1
    /// OBU_TEMPORAL_DELIMITER: starts a temporal unit in the Low Overhead format (not carried in MP4 or FLV).
    case temporalDelimiter = 2
    /// OBU_FRAME_HEADER.
    case frameHeader = 3
    /// OBU_TILE_GROUP.
    case tileGroup = 4
    /// OBU_METADATA (HDR, scalability, timecode …).
    case metadata = 5
    /// OBU_FRAME: a frame header and its tile group in one OBU.
    case frame = 6
    /// OBU_REDUNDANT_FRAME_HEADER.
    case redundantFrameHeader = 7
    /// OBU_TILE_LIST (large scale tile decoding).
    case tileList = 8
    case reserved9 = 9, reserved10 = 10, reserved11 = 11, reserved12 = 12, reserved13 = 13, reserved14 = 14
    /// OBU_PADDING.
    case padding = 15
}

/// obu_header() with its optional extension: type, layer ids and whether obu_size follows.
public struct AV1OBUHeader: Hashable, Sendable {
    /// obu_type.
    public var type: AV1OBUType
    /// temporal_id and spatial_id of obu_extension_header(); nil when obu_extension_flag is 0.
    public var extensionIds: Extension?
    /// obu_has_size_field: a leb128 obu_size follows the header.
    public var hasSizeField: Bool

    /// obu_extension_header().
    public struct Extension: Hashable, Sendable {
        /// temporal_id (3 bits).
        public var temporalId: UInt8
        /// spatial_id (2 bits).
        public var spatialId: UInt8

        public init(temporalId: UInt8, spatialId: UInt8) {
            self.temporalId = temporalId
            self.spatialId = spatialId
        }
    }

    /// A header from its fields.
    public init(type: AV1OBUType, extensionIds: Extension? = nil, hasSizeField: Bool = true) {
        self.type = type
        self.extensionIds = extensionIds
        self.hasSizeField = hasSizeField
    }

    /// Reads obu_header(); obu_forbidden_bit set throws `.invalid`.
    public init(parsing reader: inout ByteReader) throws {
        var r = reader
        // 1 bit forbidden + 4 bits obu_type + 1 bit extension flag + 1 bit has_size_field + 1 bit reserved.
        let byte = try r.readUInt8()
        guard byte & 0x80 == 0 else {
            throw MediaFormatError.invalid(structure: "AV1 OBU header", reason: "obu_forbidden_bit set")
        }
        type = AV1OBUType(rawValue: (byte >> 3) & 0x0F) ?? .reserved0
        hasSizeField = byte & 0x02 != 0
        if byte & 0x04 != 0 {
            // 3 bits temporal_id + 2 bits spatial_id + 3 bits reserved.
            let ext = try r.readUInt8()
            extensionIds = Extension(temporalId: ext >> 5, spatialId: (ext >> 3) & 0x03)
        } else {
            extensionIds = nil
        }
        reader = r
    }

    /// Appends obu_header() (1 or 2 bytes).
    public func write(into out: inout [UInt8]) {
        out.append(type.rawValue << 3 | (extensionIds == nil ? 0 : 0x04) | (hasSizeField ? 0x02 : 0))
        if let extensionIds { out.append((extensionIds.temporalId & 0x07) << 5 | (extensionIds.spatialId & 0x03) << 3) }
    }
}

/// One OBU: its header and payload (a slice of the bytes it was read from).
public struct AV1OBU: Sendable, Equatable {
    public var header: AV1OBUHeader
    public var payload: ArraySlice<UInt8>

    public init(header: AV1OBUHeader, payload: ArraySlice<UInt8>) {
        self.header = header
        self.payload = payload
    }

    /// Reads one OBU; without obu_size its payload runs to the end of `reader` (the last OBU of a sample or av1C).
    public init(parsing reader: inout ByteReader) throws {
        var r = reader
        header = try AV1OBUHeader(parsing: &r)
        if header.hasSizeField {
            let size = try LEB128.read(from: &r)
            guard size <= UInt64(r.remaining) else {
                throw MediaFormatError.truncated(needed: Int(size), available: r.remaining)
            }
            payload = try r.readBytes(Int(size))
        } else {
            payload = r.readRemaining()
        }
        reader = r
    }

    /// Every OBU of `bytes` (a temporal unit, a sample or configOBUs), in order.
    public static func all(in bytes: ArraySlice<UInt8>) throws -> [AV1OBU] {
        var reader = ByteReader(bytes)
        var obus: [AV1OBU] = []
        while !reader.isAtEnd { obus.append(try AV1OBU(parsing: &reader)) }
        return obus
    }

    /// Every OBU of `bytes`.
    public static func all(in bytes: [UInt8]) throws -> [AV1OBU] { try all(in: bytes[...]) }

    /// Appends the OBU with obu_has_size_field set (the form FLV, MP4 and av1C carry).
    public func write(into out: inout [UInt8]) throws {
        var header = header
        header.hasSizeField = true
        header.write(into: &out)
        try LEB128.write(UInt64(payload.count), into: &out)
        out.append(contentsOf: payload)
    }
}
