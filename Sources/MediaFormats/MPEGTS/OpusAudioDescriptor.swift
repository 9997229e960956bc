// The Opus-in-MPEG-2-TS mapping: stream_type 0x06 (PES private data) with a registration_descriptor 'Opus' and a
// DVB extension_descriptor (ETSI EN 300 468 §6.2.16, tag 0x7F) whose descriptor_tag_extension 0x80 carries
// channel_config_code: 1...8 are mapping family 0 (1–2 channels) or family 1 in Vorbis order; 0x81...0x88 the same
// counts in identity order; 0 and 0x80 dual mono.

/// The Opus audio descriptor of a PMT ES_info loop: the channel layout a decoder builds its OpusHead from.
public struct OpusAudioDescriptor: Sendable, Equatable, Hashable {
    /// descriptor_tag_extension of the Opus audio descriptor inside a DVB extension_descriptor.
    public static let tagExtension: UInt8 = 0x80
    /// The format_identifier of the registration_descriptor that marks an Opus stream.
    public static let formatIdentifier = "Opus"
    /// Mapping family 1 (Vorbis order) carries up to 8 channels.
    static let maxVorbisChannels = 8
    /// Vorbis channel order: coupled streams per channel count (index = channels).
    static let vorbisCoupledStreams: [UInt8] = [1, 0, 1, 1, 2, 2, 2, 3, 3]
    /// Vorbis channel order: channel_mapping per channel count (index = channels − 1).
    static let vorbisMappings: [[UInt8]] = [
        [0], [0, 1], [0, 2, 1], [0, 1, 2, 3], [0, 4, 1, 2, 3], [0, 4, 1, 2, 3, 5], [0, 4, 1, 2, 3, 5, 6],
        [0, 6, 1, 2, 3, 4, 5, 7],
    ]

    /// channel_config_code.
    public var channelConfigCode: UInt8

    public init(channelConfigCode: UInt8) { self.channelConfigCode = channelConfigCode }

    /// The descriptor for an OpusHead: mapping family 0 (1–2 channels), or family 1 in Vorbis order (up to 8).
    public init(idHeader: OpusIDHeader) throws {
        let channels = Int(idHeader.channelCount)
        if idHeader.channelMappingFamily == 0 && channels <= 2 {
            channelConfigCode = UInt8(channels)
            return
        }
        guard idHeader.channelMappingFamily == 1, channels <= Self.maxVorbisChannels, let mapping = idHeader.mapping,
              mapping.coupledStreamCount == Self.vorbisCoupledStreams[channels],
              Int(mapping.streamCount) == channels - Int(Self.vorbisCoupledStreams[channels]),
              mapping.channelMapping == Self.vorbisMappings[channels - 1] else {
            throw MediaFormatError.unsupported(
                structure: "Opus audio descriptor",
                reason: "\(channels) channels in mapping family \(idHeader.channelMappingFamily) have no channel_config_code "
                    + "(family 0 with 1–2 channels or family 1 in Vorbis order up to 8 are)")
        }
        channelConfigCode = UInt8(channels)
    }

    /// The output channel count: the low 4 bits, or 2 for the dual-mono codes 0 and 0x80.
    public var channelCount: Int {
        let count = Int(channelConfigCode & 0x0F)
        return count == 0 ? 2 : count
    }

    /// The OpusHead a decoder needs for codes 1...8 (pre-skip is not carried in TS: 0; input rate 48 kHz);
    /// nil for other codes.
    public var idHeader: OpusIDHeader? {
        let channels = Int(channelConfigCode)
        guard (1...Self.maxVorbisChannels).contains(channels) else { return nil }
        guard channels > 2 else { return OpusIDHeader(channelCount: UInt8(channels), preSkip: 0, inputSampleRate: 48000) }
        let coupled = Self.vorbisCoupledStreams[channels]
        return OpusIDHeader(
            channelCount: UInt8(channels), preSkip: 0, inputSampleRate: 48000, channelMappingFamily: 1,
            mapping: .init(streamCount: UInt8(channels) - coupled, coupledStreamCount: coupled,
                           channelMapping: Self.vorbisMappings[channels - 1]))
    }

    /// The descriptor found in an ES_info loop, nil when there is none.
    public init?(descriptors: [TSDescriptor]) {
        guard let found = descriptors.first(where: {
            $0.tag == TSDescriptor.extensionTag && $0.data.count >= 2 && $0.data[0] == Self.tagExtension
        }) else { return nil }
        channelConfigCode = found.data[1]
    }

    /// The DVB extension_descriptor carrying it.
    public var descriptor: TSDescriptor {
        TSDescriptor(tag: TSDescriptor.extensionTag, data: [Self.tagExtension, channelConfigCode])
    }
}
