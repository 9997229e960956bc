// ISO/IEC 13818-1 (2019) §2.4.4.3 Program association table, Table 2-30 program_association_section().

/// The PAT: which PID carries each program's map (program_number 0 names the network PID instead).
public struct ProgramAssociationTable: Sendable, Equatable {
    /// table_id of a program_association_section.
    public static let tableID: UInt8 = 0x00
    /// program_number + 3 bits reserved + 13 bits PID.
    static let entrySize = 4

    /// One program_number → PID pair.
    public struct Program: Sendable, Equatable {
        /// program_number; 0 means `pid` is the network_PID.
        public var programNumber: UInt16
        /// program_map_PID (or network_PID).
        public var pid: UInt16
    }

    /// transport_stream_id.
    public var transportStreamID: UInt16
    /// version_number (5 bits).
    public var version: UInt8
    /// The entries, in order.
    public var programs: [Program]

    public init(transportStreamID: UInt16 = 1, version: UInt8 = 0, programs: [Program]) {
        self.transportStreamID = transportStreamID
        self.version = version
        self.programs = programs
    }

    /// The table in a parsed section; a table_id other than 0 or a body not made of 4-byte entries throws.
    public init(section: PSISection) throws {
        try section.requireTableID(Self.tableID, of: "PAT")
        guard section.body.count % Self.entrySize == 0 else {
            throw MediaFormatError.invalid(structure: "PAT", reason: "\(section.body.count) bytes of entries, not a multiple of 4")
        }
        var reader = ByteReader(section.body)
        var programs: [Program] = []
        while !reader.isAtEnd {
            let number = try reader.readUInt16()
            programs.append(Program(programNumber: number, pid: try reader.readUInt16() & TSPacketHeader.maxPID))
        }
        self.init(transportStreamID: section.tableIDExtension, version: section.version, programs: programs)
    }

    /// The section that carries this table.
    public var section: PSISection {
        var body: [UInt8] = []
        for program in programs {
            body.appendUInt16(program.programNumber)
            // 3 bits reserved (111) + 13 bits PID.
            body.appendUInt16(0xE000 | program.pid & TSPacketHeader.maxPID)
        }
        return PSISection(tableID: Self.tableID, tableIDExtension: transportStreamID, version: version, body: body)
    }
}
