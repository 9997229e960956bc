// ISO/IEC 13818-1 (2019) §2.4.4.9 Program map table, Table 2-33 TS_program_map_section().

/// The PMT of one program: its PCR PID, program descriptors and elementary streams.
public struct ProgramMapTable: Sendable, Equatable {
    /// table_id of a TS_program_map_section.
    public static let tableID: UInt8 = 0x02
    /// program_info_length and ES_info_length are 12-bit fields whose first two bits are 0.
    public static let maxInfoLength = 0x3FF

    /// One elementary stream entry.
    public struct ElementaryStream: Sendable, Equatable {
        /// stream_type.
        public var streamType: UInt8
        /// elementary_PID.
        public var pid: UInt16
        /// The ES_info descriptors.
        public var descriptors: [TSDescriptor]

        public init(streamType: UInt8, pid: UInt16, descriptors: [TSDescriptor] = []) {
            self.streamType = streamType
            self.pid = pid
            self.descriptors = descriptors
        }

        /// An entry for `codec` on `pid`, with the descriptors the codec needs.
        public init(codec: TSStreamCodec, pid: UInt16) {
            self.init(streamType: codec.streamType, pid: pid, descriptors: codec.descriptors)
        }

        /// The codec this entry names.
        public var codec: TSStreamCodec { TSStreamCodec(streamType: streamType, descriptors: descriptors) }
    }

    /// program_number.
    public var programNumber: UInt16
    /// version_number (5 bits).
    public var version: UInt8
    /// PCR_PID (0x1FFF: no PCR).
    public var pcrPID: UInt16
    /// The program_info descriptors.
    public var programDescriptors: [TSDescriptor]
    /// The elementary streams, in order.
    public var streams: [ElementaryStream]

    public init(programNumber: UInt16, version: UInt8 = 0, pcrPID: UInt16, programDescriptors: [TSDescriptor] = [],
                streams: [ElementaryStream]) {
        self.programNumber = programNumber
        self.version = version
        self.pcrPID = pcrPID
        self.programDescriptors = programDescriptors
        self.streams = streams
    }

    /// The table in a parsed section.
    public init(section: PSISection) throws {
        try section.requireTableID(Self.tableID, of: "PMT")
        var reader = ByteReader(section.body)
        // 3 bits reserved + 13 bits PCR_PID; 4 bits reserved + 12 bits program_info_length.
        let pcrPID = try reader.readUInt16() & TSPacketHeader.maxPID
        let programInfo = try TSDescriptor.parseLoop(try reader.readBytes(Int(try reader.readUInt16() & 0x0FFF)))
        var streams: [ElementaryStream] = []
        while !reader.isAtEnd {
            let streamType = try reader.readUInt8()
            let pid = try reader.readUInt16() & TSPacketHeader.maxPID
            let descriptors = try TSDescriptor.parseLoop(try reader.readBytes(Int(try reader.readUInt16() & 0x0FFF)))
            streams.append(ElementaryStream(streamType: streamType, pid: pid, descriptors: descriptors))
        }
        self.init(programNumber: section.tableIDExtension, version: section.version, pcrPID: pcrPID,
                  programDescriptors: programInfo, streams: streams)
    }

    /// The section that carries this table; a descriptor loop over its 10-bit length throws.
    public func section() throws -> PSISection {
        var body: [UInt8] = []
        // 3 bits reserved (111) + 13 bits PCR_PID.
        body.appendUInt16(0xE000 | pcrPID & TSPacketHeader.maxPID)
        try Self.appendLoop(programDescriptors, into: &body)
        for stream in streams {
            body.append(stream.streamType)
            body.appendUInt16(0xE000 | stream.pid & TSPacketHeader.maxPID)
            try Self.appendLoop(stream.descriptors, into: &body)
        }
        return PSISection(tableID: Self.tableID, tableIDExtension: programNumber, version: version, body: body)
    }

    /// 4 bits reserved (1111) + 12 bits length, then the descriptors.
    private static func appendLoop(_ descriptors: [TSDescriptor], into body: inout [UInt8]) throws {
        let bytes = TSDescriptor.loopBytes(descriptors)
        guard bytes.count <= maxInfoLength else {
            throw MediaFormatError.limitExceeded(what: "PMT descriptor loop length", value: bytes.count, limit: maxInfoLength)
        }
        body.appendUInt16(0xF000 | UInt16(bytes.count))
        body += bytes
    }
}
