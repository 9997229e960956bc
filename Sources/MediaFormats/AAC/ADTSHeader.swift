// ISO/IEC 13818-7 §6.2 (adts_fixed_header, adts_variable_header, adts_error_check), ISO/IEC 14496-3 §1.A.2.2.

/// The header in front of every AAC frame in an ADTS stream (`.aac` files, MPEG-TS audio).
public struct ADTSHeader: Sendable, Equatable {
    /// The 12-bit syncword 1111 1111 1111.
    public static let syncword: UInt16 = 0xFFF
    /// Header length without CRC (protection_absent = 1).
    public static let lengthWithoutCRC = 7
    /// Header length with the 16-bit crc_check (protection_absent = 0).
    public static let lengthWithCRC = 9
    /// aac_frame_length is 13 bits and counts the header too.
    public static let maxFrameLength = 0x1FFF
    /// adts_buffer_fullness value meaning a variable-bitrate stream.
    public static let variableBitrateBufferFullness = 0x7FF

    /// ID: 0 = MPEG-4, 1 = MPEG-2 AAC.
    public let mpegVersionID: Int
    /// protection_absent: true means no crc_check, a 7-byte header.
    public let protectionAbsent: Bool
    /// profile_ObjectType (2 bits): the MPEG-4 audio object type minus one.
    public let profile: Int
    /// sampling_frequency_index 0...12 (`AudioSpecificConfig.samplingFrequencies`).
    public let samplingFrequencyIndex: Int
    /// private_bit.
    public let privateBit: Bool
    /// channel_configuration (3 bits): 0 means a program_config_element in the raw data.
    public let channelConfiguration: Int
    /// original_copy.
    public let originalCopy: Bool
    /// home.
    public let home: Bool
    /// copyright_identification_bit.
    public let copyrightIdentificationBit: Bool
    /// copyright_identification_start.
    public let copyrightIdentificationStart: Bool
    /// aac_frame_length: header plus payload, in bytes.
    public let frameLength: Int
    /// adts_buffer_fullness (11 bits); 0x7FF means variable bitrate.
    public let bufferFullness: Int
    /// number_of_raw_data_blocks_in_frame: one less than the number of AAC frames in this ADTS frame.
    public let numberOfRawDataBlocks: Int
    /// crc_check when `protectionAbsent` is false (kept, not verified).
    public let crc: UInt16?

    /// 7 or 9 bytes.
    public var headerLength: Int { protectionAbsent ? Self.lengthWithoutCRC : Self.lengthWithCRC }
    /// Bytes after the header.
    public var payloadLength: Int { frameLength - headerLength }
    /// The MPEG-4 audio object type (profile + 1).
    public var objectType: Int { profile + 1 }
    /// The sampling frequency in Hz.
    public var samplingFrequency: Int { AudioSpecificConfig.samplingFrequencies[samplingFrequencyIndex] }

    /// Parses the header at the start of `bytes`; checks the syncword, layer 0, the index and the frame length.
    public init(parsing bytes: some Collection<UInt8>) throws {
        var prefix: [UInt8] = []
        prefix.reserveCapacity(Self.lengthWithCRC)
        for byte in bytes.prefix(Self.lengthWithCRC) { prefix.append(byte) }
        guard prefix.count >= Self.lengthWithoutCRC else {
            throw MediaFormatError.truncated(needed: Self.lengthWithoutCRC, available: prefix.count)
        }
        var bits = BitReader(prefix)
        let sync = try bits.readBits(12)
        guard sync == UInt32(Self.syncword) else {
            throw MediaFormatError.invalid(
                structure: "ADTS header", reason: "syncword is 0x\(String(sync, radix: 16)), not 0xfff")
        }
        let id = Int(try bits.readBits(1))
        let layer = try bits.readBits(2)
        guard layer == 0 else {
            throw MediaFormatError.invalid(structure: "ADTS header", reason: "layer is \(layer), not 0")
        }
        let protectionAbsent = try bits.readFlag()
        let profile = Int(try bits.readBits(2))
        let index = Int(try bits.readBits(4))
        guard index < AudioSpecificConfig.samplingFrequencies.count else {
            throw MediaFormatError.invalid(
                structure: "ADTS header", reason: "sampling_frequency_index \(index) is reserved or explicit")
        }
        let privateBit = try bits.readFlag()
        let channels = Int(try bits.readBits(3))
        let originalCopy = try bits.readFlag()
        let home = try bits.readFlag()
        let copyrightBit = try bits.readFlag()
        let copyrightStart = try bits.readFlag()
        let frameLength = Int(try bits.readBits(13))
        let fullness = Int(try bits.readBits(11))
        let blocks = Int(try bits.readBits(2))
        var crc: UInt16?
        if !protectionAbsent {
            guard prefix.count >= Self.lengthWithCRC else {
                throw MediaFormatError.truncated(needed: Self.lengthWithCRC, available: prefix.count)
            }
            crc = UInt16(try bits.readBits(16))
        }
        let headerLength = protectionAbsent ? Self.lengthWithoutCRC : Self.lengthWithCRC
        guard frameLength >= headerLength else {
            throw MediaFormatError.invalid(
                structure: "ADTS header",
                reason: "aac_frame_length \(frameLength) is shorter than the \(headerLength)-byte header")
        }
        self.mpegVersionID = id
        self.protectionAbsent = protectionAbsent
        self.profile = profile
        self.samplingFrequencyIndex = index
        self.privateBit = privateBit
        self.channelConfiguration = channels
        self.originalCopy = originalCopy
        self.home = home
        self.copyrightIdentificationBit = copyrightBit
        self.copyrightIdentificationStart = copyrightStart
        self.frameLength = frameLength
        self.bufferFullness = fullness
        self.numberOfRawDataBlocks = blocks
        self.crc = crc
    }

    /// The header for one AAC frame of `payloadLength` bytes described by `audioSpecificConfig`:
    /// MPEG-4 ID, no CRC, VBR buffer fullness, one raw data block. HE-AAC is written as its core
    /// object type at the core rate (implicit SBR), as FFmpeg's ADTS muxer does.
    public init(audioSpecificConfig config: AudioSpecificConfig, payloadLength: Int) throws {
        precondition(payloadLength >= 0, "payloadLength must not be negative")
        let type = config.coreObjectType
        guard AudioObjectType.adtsCarriable.contains(type) else {
            throw MediaFormatError.unsupported(
                structure: "ADTS header",
                reason: "AAC object type \(type) (\(AudioObjectType.name(of: type))) cannot be carried in ADTS; "
                    + "ADTS carries object types 1–4")
        }
        guard config.samplingFrequencyIndex < AudioSpecificConfig.samplingFrequencies.count else {
            throw MediaFormatError.unsupported(
                structure: "ADTS header",
                reason: "explicit sampling frequency \(config.samplingFrequency) Hz (index 15) cannot be carried "
                    + "in ADTS; it needs one of the 13 table frequencies")
        }
        guard (1...7).contains(config.channelConfiguration) else {
            throw MediaFormatError.unsupported(
                structure: "ADTS header",
                reason: "channel configuration \(config.channelConfiguration) cannot be written in the 3-bit "
                    + "ADTS field (1–7 are supported)")
        }
        let frameLength = Self.lengthWithoutCRC + payloadLength
        guard frameLength <= Self.maxFrameLength else {
            throw MediaFormatError.limitExceeded(
                what: "ADTS aac_frame_length", value: frameLength, limit: Self.maxFrameLength)
        }
        self.mpegVersionID = 0
        self.protectionAbsent = true
        self.profile = type - 1
        self.samplingFrequencyIndex = config.samplingFrequencyIndex
        self.privateBit = false
        self.channelConfiguration = config.channelConfiguration
        self.originalCopy = false
        self.home = false
        self.copyrightIdentificationBit = false
        self.copyrightIdentificationStart = false
        self.frameLength = frameLength
        self.bufferFullness = Self.variableBitrateBufferFullness
        self.numberOfRawDataBlocks = 0
        self.crc = nil
    }

    /// The AudioSpecificConfig this header implies (what an FLV or MP4 output needs as its sequence header).
    public var audioSpecificConfig: AudioSpecificConfig {
        get throws {
            try AudioSpecificConfig(
                objectType: objectType, samplingFrequency: samplingFrequency,
                channelConfiguration: channelConfiguration)
        }
    }

    /// Appends the 7- or 9-byte header (the crc_check as stored, 0 when missing).
    public func write(into out: inout [UInt8]) {
        var bits = BitWriter()
        bits.write(UInt32(Self.syncword), bits: 12)
        bits.write(UInt32(mpegVersionID), bits: 1)
        bits.write(0, bits: 2)  // layer
        bits.writeFlag(protectionAbsent)
        bits.write(UInt32(profile), bits: 2)
        bits.write(UInt32(samplingFrequencyIndex), bits: 4)
        bits.writeFlag(privateBit)
        bits.write(UInt32(channelConfiguration), bits: 3)
        bits.writeFlag(originalCopy)
        bits.writeFlag(home)
        bits.writeFlag(copyrightIdentificationBit)
        bits.writeFlag(copyrightIdentificationStart)
        bits.write(UInt32(frameLength), bits: 13)
        bits.write(UInt32(bufferFullness), bits: 11)
        bits.write(UInt32(numberOfRawDataBlocks), bits: 2)
        if !protectionAbsent { bits.write(UInt32(crc ?? 0), bits: 16) }
        out.append(contentsOf: bits.bytes)
    }
}
