// Encapsulation of Opus in ISO Base Media File Format (v0.8) §4.3.2 Opus Specific Box ('dOps'): the fields of the
// OpusHead identification header (RFC 7845 §5.1) without its magic, with Version 0 and every field big-endian.

/// `dOps`: the Opus decoder configuration, from an `OpusIDHeader`.
public struct OpusSpecificBox: MP4Box, Equatable {
    /// The header whose fields are written (its version and byte order are not).
    public var header: OpusIDHeader

    /// The only Version.
    static let version: UInt8 = 0
    /// Version, OutputChannelCount, PreSkip, InputSampleRate, OutputGain, ChannelMappingFamily.
    static let fixedSize = 11

    public var boxType: MP4FourCC { "dOps" }

    /// The box for `header`.
    public init(header: OpusIDHeader) { self.header = header }

    /// Parses a payload back into an ID header (version 1, as OpusHead writes it).
    public init(parsing payload: ArraySlice<UInt8>) throws {
        var reader = ByteReader(payload)
        let version = try reader.readUInt8()
        guard version == Self.version else {
            throw MediaFormatError.unsupported(structure: "dOps", reason: "Version \(version)")
        }
        let channels = try reader.readUInt8()
        let preSkip = try reader.readUInt16()
        let rate = try reader.readUInt32()
        let gain = Int16(bitPattern: try reader.readUInt16())
        let family = try reader.readUInt8()
        var mapping: OpusIDHeader.ChannelMapping?
        if family != 0 {
            let streams = try reader.readUInt8()
            let coupled = try reader.readUInt8()
            mapping = .init(streamCount: streams, coupledStreamCount: coupled, channelMapping: Array(try reader.readBytes(Int(channels))))
        }
        header = OpusIDHeader(channelCount: channels, preSkip: preSkip, inputSampleRate: rate, outputGain: gain,
                              channelMappingFamily: family, mapping: mapping)
    }

    public var payloadSize: Int {
        Self.fixedSize + (header.mapping.map { 2 + $0.channelMapping.count } ?? 0)
    }

    public func writePayload(into out: inout [UInt8]) throws {
        try header.validateMapping()
        out.append(Self.version)
        out.append(header.channelCount)
        out.appendUInt16(header.preSkip)
        out.appendUInt32(header.inputSampleRate)
        out.appendUInt16(UInt16(bitPattern: header.outputGain))
        out.append(header.channelMappingFamily)
        if let mapping = header.mapping {
            out.append(mapping.streamCount)
            out.append(mapping.coupledStreamCount)
            out.append(contentsOf: mapping.channelMapping)
        }
    }
}
