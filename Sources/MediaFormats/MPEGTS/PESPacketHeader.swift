// ISO/IEC 13818-1 (2019) §2.4.3.6 PES packet, Table 2-21 PES_packet(), §2.4.3.7 semantics (PTS/DTS as 33-bit
// values in 90 kHz units, coded with marker bits), Table 2-22 stream_id assignments.

/// The header of a PES packet up to its payload: stream_id, PES_packet_length and the optional header's timestamps.
public struct PESPacketHeader: Sendable, Equatable {
    /// packet_start_code_prefix + stream_id + PES_packet_length.
    public static let fixedSize = 6
    /// The flag bytes and PES_header_data_length after the fixed part.
    static let optionalHeaderSize = 3
    /// One PTS or DTS field.
    static let timestampSize = 5
    /// PES_packet_length is 16 bits; a video PES longer than this writes 0 (unbounded).
    public static let maxPacketLength = 0xFFFF
    /// PTS and DTS are 33-bit values.
    public static let timestampModulus: Int64 = 1 << 33
    /// The first video stream (1110 xxxx).
    public static let videoStreamID: UInt8 = 0xE0
    /// The first MPEG audio stream (110x xxxx).
    public static let audioStreamID: UInt8 = 0xC0
    /// private_stream_1.
    public static let privateStream1ID: UInt8 = 0xBD
    /// Streams whose PES packets have no optional header (program_stream_map, padding, private_stream_2, ECM, EMM,
    /// program_stream_directory, DSMCC, ITU-T H.222.1 type E).
    static let streamIDsWithoutOptionalHeader: Set<UInt8> = [0xBC, 0xBE, 0xBF, 0xF0, 0xF1, 0xFF, 0xF2, 0xF8]

    /// stream_id.
    public var streamID: UInt8
    /// PES_packet_length: bytes after this field; 0 for a video PES of unbounded length.
    public var packetLength: Int
    /// data_alignment_indicator: the payload starts with an access unit (or a video start code).
    public var dataAlignmentIndicator: Bool
    /// PTS, 0 ..< 2^33.
    public var pts: Int64?
    /// DTS, 0 ..< 2^33; only with a PTS.
    public var dts: Int64?
    /// Bytes from packet_start_code_prefix to the first payload byte.
    public private(set) var headerLength: Int

    /// A header with an optional header; timestamps are taken modulo 2^33.
    public init(streamID: UInt8, packetLength: Int = 0, dataAlignmentIndicator: Bool = true, pts: Int64?, dts: Int64? = nil) {
        precondition(pts != nil || dts == nil, "a DTS needs a PTS")
        self.streamID = streamID
        self.packetLength = packetLength
        self.dataAlignmentIndicator = dataAlignmentIndicator
        self.pts = pts.map { $0 & (Self.timestampModulus - 1) }
        self.dts = dts.map { $0 & (Self.timestampModulus - 1) }
        headerLength = Self.fixedSize + Self.optionalHeaderSize + (pts == nil ? 0 : Self.timestampSize)
            + (dts == nil ? 0 : Self.timestampSize)
    }

    /// Parses the header at the start of `bytes` (a PES packet's first bytes).
    public init(parsing bytes: ArraySlice<UInt8>) throws {
        var reader = ByteReader(bytes)
        let prefix = try reader.readUInt24()
        guard prefix == 0x000001 else {
            throw MediaFormatError.invalid(structure: "PES header", reason: "packet_start_code_prefix is 0x\(String(prefix, radix: 16)), not 0x000001")
        }
        streamID = try reader.readUInt8()
        packetLength = Int(try reader.readUInt16())
        dataAlignmentIndicator = false
        pts = nil
        dts = nil
        headerLength = Self.fixedSize
        guard !Self.streamIDsWithoutOptionalHeader.contains(streamID) else { return }
        // '10' + 2 bits scrambling + priority + data_alignment_indicator + copyright + original_or_copy.
        let first = try reader.readUInt8()
        guard first & 0xC0 == 0x80 else {
            throw MediaFormatError.invalid(structure: "PES header", reason: "optional header does not start with '10'")
        }
        dataAlignmentIndicator = first & 0x04 != 0
        // 2 bits PTS_DTS_flags + ESCR, ES_rate, DSM_trick_mode, additional_copy_info, PES_CRC, PES_extension flags.
        let flags = try reader.readUInt8()
        let dataLength = Int(try reader.readUInt8())
        var fields = ByteReader(try reader.readBytes(dataLength))
        switch flags >> 6 {
        case 0b10:
            pts = try Self.readTimestamp(&fields)
        case 0b11:
            pts = try Self.readTimestamp(&fields)
            dts = try Self.readTimestamp(&fields)
        case 0b01:
            throw MediaFormatError.invalid(structure: "PES header", reason: "PTS_DTS_flags '01' is forbidden")
        default:
            break
        }
        headerLength = Self.fixedSize + Self.optionalHeaderSize + dataLength
        if packetLength != 0 && packetLength < headerLength - Self.fixedSize {
            throw MediaFormatError.invalid(structure: "PES header", reason: "PES_packet_length \(packetLength) is shorter than its header")
        }
    }

    /// Bytes of payload the packet declares, nil when PES_packet_length is 0 (unbounded).
    public var payloadLength: Int? {
        packetLength == 0 ? nil : packetLength - (headerLength - Self.fixedSize)
    }

    /// Appends the header for `payloadLength` bytes of payload: PES_packet_length is set from it, or 0 when
    /// `unboundedLength` or past 16 bits (allowed for video only; audio over the limit throws).
    public mutating func write(payloadLength: Int, unboundedLength: Bool, into out: inout [UInt8]) throws {
        let length = headerLength - Self.fixedSize + payloadLength
        if unboundedLength || length > Self.maxPacketLength {
            guard unboundedLength || (0xE0...0xEF).contains(streamID) else {
                throw MediaFormatError.limitExceeded(what: "PES_packet_length", value: length, limit: Self.maxPacketLength)
            }
            packetLength = 0
        } else {
            packetLength = length
        }
        out.appendUInt24(0x000001)
        out.append(streamID)
        out.appendUInt16(UInt16(packetLength))
        // '10' + scrambling 00 + priority 0 + data_alignment_indicator + copyright 0 + original_or_copy 0.
        out.append(0x80 | (dataAlignmentIndicator ? 0x04 : 0))
        out.append((pts == nil ? 0 : 0x80) | (dts == nil ? 0 : 0x40))
        out.append(UInt8(headerLength - Self.fixedSize - Self.optionalHeaderSize))
        if let pts { Self.writeTimestamp(pts, prefix: dts == nil ? 0b0010 : 0b0011, into: &out) }
        if let dts { Self.writeTimestamp(dts, prefix: 0b0001, into: &out) }
    }

    /// 4 bits prefix + 3 bits [32..30] + marker + 15 bits [29..15] + marker + 15 bits [14..0] + marker.
    static func writeTimestamp(_ value: Int64, prefix: UInt8, into out: inout [UInt8]) {
        let v = UInt64(value & (timestampModulus - 1))
        out.append(prefix << 4 | UInt8(truncatingIfNeeded: v >> 29) & 0x0E | 1)
        out.appendUInt16(UInt16(truncatingIfNeeded: v >> 14) & 0xFFFE | 1)
        out.appendUInt16(UInt16(truncatingIfNeeded: v << 1) & 0xFFFE | 1)
    }

    /// The 33-bit value of a 5-byte PTS or DTS field (marker bits are not checked: some muxers get them wrong).
    static func readTimestamp(_ reader: inout ByteReader) throws -> Int64 {
        let raw = try reader.readUInt(byteCount: timestampSize)
        let high = raw >> 33 & 0x07
        let middle = raw >> 17 & 0x7FFF
        let low = raw >> 1 & 0x7FFF
        return Int64(high << 30 | middle << 15 | low)
    }
}
