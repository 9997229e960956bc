// ISO/IEC 14496-14 (2020) §5.6 ESDBox ('esds'): a FullBox holding an ES_Descriptor, ISO/IEC 14496-1 (2010) §7.2.6.5,
// with its DecoderConfigDescriptor (§7.2.6.6), DecoderSpecificInfo (§7.2.6.7: the AudioSpecificConfig) and
// SLConfigDescriptor (§7.3.2.3). Each descriptor is a tag and a size of instance (§8.3.3: 7 bits per byte, high bit
// set on every byte but the last).

/// `esds` for MPEG-4 audio: the AudioSpecificConfig wrapped in its descriptors.
public struct ElementaryStreamDescriptorBox: MP4Box, Equatable {
    /// objectTypeIndication (Table 5 of 14496-1): 0x40 is MPEG-4 audio (ISO/IEC 14496-3).
    public var objectTypeIndication: UInt8
    /// streamType (6 bits, Table 6): 0x05 is an audio stream.
    public var streamType: UInt8
    /// bufferSizeDB (24 bits), maxBitrate and avgBitrate (bits per second); 0 when unknown (a live input).
    public var bufferSizeDB: UInt32
    public var maxBitrate: UInt32
    public var averageBitrate: UInt32
    /// DecoderSpecificInfo: the AudioSpecificConfig bytes as received.
    public var decoderSpecificInfo: [UInt8]

    /// objectTypeIndication of MPEG-4 audio.
    public static let mpeg4Audio: UInt8 = 0x40
    /// streamType of audio.
    public static let audioStream: UInt8 = 0x05
    /// ES_DescrTag, DecoderConfigDescrTag, DecSpecificInfoTag, SLConfigDescrTag (§7.2.2.1 Table 1).
    static let esDescriptorTag: UInt8 = 0x03
    static let decoderConfigDescriptorTag: UInt8 = 0x04
    static let decoderSpecificInfoTag: UInt8 = 0x05
    static let slConfigDescriptorTag: UInt8 = 0x06
    /// SLConfigDescriptor predefined 2: the value 14496-14 §3.1.2 requires in files.
    static let slPredefinedMP4: UInt8 = 0x02
    /// A size of instance is at most four 7-bit groups.
    public static let maxDescriptorSize = (1 << 28) - 1
    /// bufferSizeDB is 24 bits.
    public static let maxBufferSizeDB: UInt32 = 0xFF_FFFF
    /// ES_ID + flags; objectTypeIndication + streamType byte + bufferSizeDB + maxBitrate + avgBitrate.
    static let esFieldsSize = 3
    static let decoderConfigFieldsSize = 13

    public var boxType: MP4FourCC { "esds" }

    /// The box for an AAC track: MPEG-4 audio carrying `audioSpecificConfig`'s bytes.
    public init(audioSpecificConfig: AudioSpecificConfig, maxBitrate: UInt32 = 0, averageBitrate: UInt32 = 0) {
        self.objectTypeIndication = Self.mpeg4Audio
        self.streamType = Self.audioStream
        self.bufferSizeDB = 0
        self.maxBitrate = maxBitrate
        self.averageBitrate = averageBitrate
        self.decoderSpecificInfo = audioSpecificConfig.bytes
    }

    /// Parses a payload: the ES_Descriptor and, inside it, the DecoderConfigDescriptor and its DecoderSpecificInfo.
    public init(parsing payload: ArraySlice<UInt8>) throws {
        var box = try MP4FullBoxPayload(payload)
        var es = try Self.readDescriptor(&box.reader, tag: Self.esDescriptorTag)
        _ = try es.readUInt16()  // ES_ID
        // streamDependenceFlag, URL_Flag, OCRstreamFlag + 5 bits streamPriority.
        let flags = try es.readUInt8()
        if flags & 0x80 != 0 { try es.skip(2) }  // dependsOn_ES_ID
        if flags & 0x40 != 0 { try es.skip(Int(try es.readUInt8())) }  // URLlength + URLstring
        if flags & 0x20 != 0 { try es.skip(2) }  // OCR_ES_Id
        var config = try Self.readDescriptor(&es, tag: Self.decoderConfigDescriptorTag)
        objectTypeIndication = try config.readUInt8()
        streamType = try config.readUInt8() >> 2  // 6 bits streamType + upStream + reserved
        bufferSizeDB = try config.readUInt24()
        maxBitrate = try config.readUInt32()
        averageBitrate = try config.readUInt32()
        var info = try Self.readDescriptor(&config, tag: Self.decoderSpecificInfoTag)
        decoderSpecificInfo = Array(info.readRemaining())
    }

    /// DecoderSpecificInfo, then DecoderConfigDescriptor, then ES_Descriptor: each one's size is the one inside plus
    /// its own fields.
    private var sizes: (info: Int, config: Int, es: Int) {
        let info = decoderSpecificInfo.count
        let config = Self.decoderConfigFieldsSize + Self.descriptorSize(info)
        let es = Self.esFieldsSize + Self.descriptorSize(config) + Self.descriptorSize(1)
        return (info, config, es)
    }

    public var payloadSize: Int { MP4BoxHeader.fullBoxFieldsSize + Self.descriptorSize(sizes.es) }

    public func writePayload(into out: inout [UInt8]) throws {
        let sizes = sizes
        guard sizes.es <= Self.maxDescriptorSize else {
            throw MediaFormatError.limitExceeded(what: "ES_Descriptor size", value: sizes.es, limit: Self.maxDescriptorSize)
        }
        guard bufferSizeDB <= Self.maxBufferSizeDB, streamType < 0x40 else {
            throw MediaFormatError.invalid(structure: "DecoderConfigDescriptor", reason: "bufferSizeDB or streamType too wide")
        }
        MP4BoxHeader.writeFullBoxFields(version: 0, flags: 0, into: &out)
        Self.writeDescriptorHeader(tag: Self.esDescriptorTag, size: sizes.es, into: &out)
        out.appendUInt16(0)  // ES_ID: 0 in a file (14496-14 §3.1.2)
        out.append(0)  // no dependence, URL or OCR stream; streamPriority 0
        Self.writeDescriptorHeader(tag: Self.decoderConfigDescriptorTag, size: sizes.config, into: &out)
        out.append(objectTypeIndication)
        out.append(streamType << 2 | 0x01)  // 6 bits streamType + upStream (0) + reserved (1)
        out.appendUInt24(bufferSizeDB)
        out.appendUInt32(maxBitrate)
        out.appendUInt32(averageBitrate)
        Self.writeDescriptorHeader(tag: Self.decoderSpecificInfoTag, size: sizes.info, into: &out)
        out.append(contentsOf: decoderSpecificInfo)
        Self.writeDescriptorHeader(tag: Self.slConfigDescriptorTag, size: 1, into: &out)
        out.append(Self.slPredefinedMP4)
    }

    /// Bytes of a descriptor whose payload is `size` bytes: the tag, the size of instance in the fewest 7-bit groups.
    static func descriptorSize(_ size: Int) -> Int {
        var groups = 1
        while size >> (7 * groups) != 0 { groups += 1 }
        return 1 + groups + size
    }

    /// Appends a tag and `size` as a size of instance (§8.3.3): big-endian 7-bit groups, 0x80 on all but the last.
    static func writeDescriptorHeader(tag: UInt8, size: Int, into out: inout [UInt8]) {
        out.append(tag)
        let groups = descriptorSize(size) - 1 - size
        for group in stride(from: groups - 1, through: 0, by: -1) {
            let bits = UInt8(truncatingIfNeeded: size >> (7 * group)) & 0x7F
            out.append(group == 0 ? bits : bits | 0x80)
        }
    }

    /// Reads a descriptor of `tag` and returns a reader over its payload (the outer reader moves past it).
    static func readDescriptor(_ reader: inout ByteReader, tag: UInt8) throws -> ByteReader {
        let found = try reader.readUInt8()
        guard found == tag else {
            throw MediaFormatError.invalid(structure: "esds", reason: "descriptor tag \(found), expected \(tag)")
        }
        var size = 0
        for index in 0..<4 {
            let byte = try reader.readUInt8()
            size = size << 7 | Int(byte & 0x7F)
            if byte & 0x80 == 0 { break }
            guard index < 3 else {
                throw MediaFormatError.invalid(structure: "esds", reason: "size of instance longer than 4 bytes")
            }
        }
        return ByteReader(try reader.readBytes(size))
    }
}
