// RFC 7845 §5.1 Identification Header ("OpusHead"): the Opus codec configuration that Ogg, Matroska, MP4 (as dOps,
// re-encoded) and Enhanced RTMP's Opus SequenceStart carry. Multi-byte fields are little-endian.

/// The Opus ID header.
public struct OpusIDHeader: Sendable, Equatable {
    /// Version: the major version (upper 4 bits) must be 0; 1 is current.
    public var version: UInt8 = 1
    /// Output channel count (1...255).
    public var channelCount: UInt8
    /// Pre-skip: samples at 48 kHz to discard at the start.
    public var preSkip: UInt16
    /// Input sample rate (informational; Opus always decodes at 48 kHz); 0 unspecified.
    public var inputSampleRate: UInt32
    /// Output gain, Q7.8 dB.
    public var outputGain: Int16
    /// Channel mapping family (0 mono/stereo, 1 Vorbis order, 255 undefined).
    public var channelMappingFamily: UInt8
    /// The channel mapping table of families other than 0.
    public var mapping: ChannelMapping?

    /// Stream count, coupled stream count and the output channel → decoded channel table.
    public struct ChannelMapping: Sendable, Equatable {
        public var streamCount: UInt8
        public var coupledStreamCount: UInt8
        /// One entry per output channel; 255 means silence.
        public var channelMapping: [UInt8]
    }

    /// "OpusHead".
    public static let magic: [UInt8] = Array("OpusHead".utf8)
    /// Magic, version, channel count, pre-skip, sample rate, gain, family.
    public static let fixedSize = 19
    /// Versions whose major part (upper 4 bits) is 0 are compatible.
    static let majorVersionMask: UInt8 = 0xF0

    private static let structure = "OpusHead"

    /// A header from its fields.
    public init(channelCount: UInt8, preSkip: UInt16, inputSampleRate: UInt32, outputGain: Int16 = 0,
                channelMappingFamily: UInt8 = 0, mapping: ChannelMapping? = nil) {
        self.channelCount = channelCount
        self.preSkip = preSkip
        self.inputSampleRate = inputSampleRate
        self.outputGain = outputGain
        self.channelMappingFamily = channelMappingFamily
        self.mapping = mapping
    }

    /// Parses an ID header; trailing bytes after it are allowed (§5.1: "MAY be larger").
    public init(parsing bytes: [UInt8]) throws {
        var reader = ByteReader(bytes)
        guard Array(try reader.readBytes(Self.magic.count)) == Self.magic else {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "magic signature is not OpusHead")
        }
        version = try reader.readUInt8()
        guard version & Self.majorVersionMask == 0 else {
            throw MediaFormatError.unsupported(structure: Self.structure, reason: "version \(version)")
        }
        channelCount = try reader.readUInt8()
        guard channelCount > 0 else {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "channel count 0")
        }
        preSkip = UInt16(try Self.readLE(&reader, 2))
        inputSampleRate = UInt32(try Self.readLE(&reader, 4))
        outputGain = Int16(bitPattern: UInt16(try Self.readLE(&reader, 2)))
        channelMappingFamily = try reader.readUInt8()
        guard channelMappingFamily != 0 else {
            guard channelCount <= 2 else {
                throw MediaFormatError.invalid(structure: Self.structure, reason: "\(channelCount) channels in mapping family 0")
            }
            mapping = nil
            return
        }
        let streams = try reader.readUInt8()
        let coupled = try reader.readUInt8()
        guard streams > 0, coupled <= streams, Int(streams) + Int(coupled) <= Int(UInt8.max) else {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "\(streams) streams, \(coupled) coupled")
        }
        let table = Array(try reader.readBytes(Int(channelCount)))
        let decodedChannels = Int(streams) + Int(coupled)
        guard table.allSatisfy({ $0 == UInt8.max || Int($0) < decodedChannels }) else {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "channel mapping past \(decodedChannels) channels")
        }
        mapping = ChannelMapping(streamCount: streams, coupledStreamCount: coupled, channelMapping: table)
    }

    /// Throws unless the mapping table is present exactly when the family is not 0, with one entry per channel (what
    /// both OpusHead and MP4's dOps require before writing).
    func validateMapping() throws {
        guard (channelMappingFamily == 0) == (mapping == nil) else {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "mapping table present iff family is not 0")
        }
        if let mapping, mapping.channelMapping.count != Int(channelCount) {
            throw MediaFormatError.invalid(
                structure: Self.structure, reason: "\(mapping.channelMapping.count) mapping entries for \(channelCount) channels")
        }
    }

    /// Appends the header.
    public func write(into out: inout [UInt8]) throws {
        try validateMapping()
        out += Self.magic
        out += [version, channelCount]
        out += [UInt8(truncatingIfNeeded: preSkip), UInt8(truncatingIfNeeded: preSkip >> 8)]
        for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(truncatingIfNeeded: inputSampleRate >> UInt32(shift))) }
        let gain = UInt16(bitPattern: outputGain)
        out += [UInt8(truncatingIfNeeded: gain), UInt8(truncatingIfNeeded: gain >> 8)]
        out.append(channelMappingFamily)
        if let mapping { out += [mapping.streamCount, mapping.coupledStreamCount] + mapping.channelMapping }
    }

    /// The written bytes.
    public func serialized() throws -> [UInt8] {
        var out: [UInt8] = []
        try write(into: &out)
        return out
    }

    /// A little-endian unsigned integer of `count` bytes.
    private static func readLE(_ reader: inout ByteReader, _ count: Int) throws -> UInt64 {
        try reader.readBytes(count).reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }
}
