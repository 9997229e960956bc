// ISO/IEC 13818-1 (2019) §2.4.4 Program specific information: the long-form section syntax shared by the PAT
// (Table 2-30) and the PMT (Table 2-33), ending in CRC_32 (Annex A); §2.4.4.2 pointer_field.

/// One long-form PSI section: the header fields around a table's body, checked by its CRC_32.
public struct PSISection: Sendable, Equatable {
    /// section_length is 12 bits but PAT and PMT sections are limited to 1021 (§2.4.4.5, §2.4.4.9).
    public static let maxSectionLength = 1021
    /// table_id through section_length.
    static let headerSize = 3
    /// table_id_extension through last_section_number.
    static let syntaxHeaderSize = 5
    /// CRC_32.
    static let crcSize = 4
    /// A table_id of 0xFF is stuffing: no more sections in this packet.
    public static let stuffingTableID: UInt8 = 0xFF

    /// table_id (0x00 PAT, 0x02 PMT).
    public var tableID: UInt8
    /// table_id_extension: transport_stream_id in a PAT, program_number in a PMT.
    public var tableIDExtension: UInt16
    /// version_number (5 bits).
    public var version: UInt8
    /// current_next_indicator: false for a table announced for later.
    public var currentNext: Bool
    /// section_number.
    public var sectionNumber: UInt8
    /// last_section_number.
    public var lastSectionNumber: UInt8
    /// The table's own fields between last_section_number and CRC_32.
    public var body: [UInt8]

    /// A section from its fields; `version` over 5 bits is a programmer error.
    public init(tableID: UInt8, tableIDExtension: UInt16, version: UInt8 = 0, currentNext: Bool = true,
                sectionNumber: UInt8 = 0, lastSectionNumber: UInt8 = 0, body: [UInt8]) {
        precondition(version < 32, "version_number is 5 bits")
        self.tableID = tableID
        self.tableIDExtension = tableIDExtension
        self.version = version
        self.currentNext = currentNext
        self.sectionNumber = sectionNumber
        self.lastSectionNumber = lastSectionNumber
        self.body = body
    }

    /// The bytes of the section starting at `bytes`' first index: 3 + section_length, or nil when fewer than the 3
    /// header bytes are there yet.
    public static func totalLength(of bytes: ArraySlice<UInt8>) -> Int? {
        guard bytes.count >= headerSize else { return nil }
        let start = bytes.startIndex
        return headerSize + Int(UInt16(bytes[start + 1] & 0x0F) << 8 | UInt16(bytes[start + 2]))
    }

    /// Parses one whole section at the start of `bytes`; checks section_syntax_indicator, the length and CRC_32.
    public init(parsing bytes: ArraySlice<UInt8>) throws {
        var reader = ByteReader(bytes)
        tableID = try reader.readUInt8()
        let lengthField = try reader.readUInt16()
        guard lengthField & 0x8000 != 0 else {
            throw MediaFormatError.unsupported(structure: "PSI section", reason: "section_syntax_indicator 0 (short form)")
        }
        let sectionLength = Int(lengthField & 0x0FFF)
        guard sectionLength <= Self.maxSectionLength else {
            throw MediaFormatError.invalid(structure: "PSI section", reason: "section_length \(sectionLength) (at most \(Self.maxSectionLength))")
        }
        guard sectionLength >= Self.syntaxHeaderSize + Self.crcSize else {
            throw MediaFormatError.invalid(structure: "PSI section", reason: "section_length \(sectionLength) leaves no room for its header and CRC_32")
        }
        let whole = bytes.prefix(Self.headerSize + sectionLength)
        _ = try reader.readBytes(sectionLength)
        guard CRC32MPEG2.checksum(whole) == 0 else {
            throw MediaFormatError.invalid(structure: "PSI section", reason: "CRC_32 mismatch (table_id 0x\(String(tableID, radix: 16)))")
        }
        var fields = ByteReader(whole.dropFirst(Self.headerSize))
        tableIDExtension = try fields.readUInt16()
        // 2 bits reserved + 5 bits version_number + 1 bit current_next_indicator.
        let versionByte = try fields.readUInt8()
        version = versionByte >> 1 & 0x1F
        currentNext = versionByte & 0x01 != 0
        sectionNumber = try fields.readUInt8()
        lastSectionNumber = try fields.readUInt8()
        body = Array(try fields.readBytes(sectionLength - Self.syntaxHeaderSize - Self.crcSize))
    }

    /// Throws unless this section's table_id is `expected`, the one of the table named `structure`.
    func requireTableID(_ expected: UInt8, of structure: String) throws {
        guard tableID == expected else {
            throw MediaFormatError.invalid(
                structure: structure, reason: "table_id 0x\(String(tableID, radix: 16)), not 0x\(String(expected, radix: 16))")
        }
    }

    /// Appends the section with its CRC_32; a body past the 1021-byte section_length throws.
    public func write(into out: inout [UInt8]) throws {
        let sectionLength = Self.syntaxHeaderSize + body.count + Self.crcSize
        guard sectionLength <= Self.maxSectionLength else {
            throw MediaFormatError.limitExceeded(what: "PSI section_length", value: sectionLength, limit: Self.maxSectionLength)
        }
        let start = out.count
        out.append(tableID)
        // 1 bit section_syntax_indicator (1) + '0' + 2 bits reserved (11) + 12 bits section_length.
        out.appendUInt16(0xB000 | UInt16(sectionLength))
        out.appendUInt16(tableIDExtension)
        // 2 bits reserved (11) + 5 bits version_number + 1 bit current_next_indicator.
        out.append(0xC0 | version << 1 | (currentNext ? 1 : 0))
        out.append(sectionNumber)
        out.append(lastSectionNumber)
        out += body
        out.appendUInt32(CRC32MPEG2.checksum(out[start...]))
    }
}
