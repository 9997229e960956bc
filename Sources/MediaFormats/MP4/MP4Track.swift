// ISO/IEC 14496-12 (2022) §8.3 Track structure (trak → tkhd, mdia → mdhd, hdlr, minf → vmhd/smhd, dinf, stbl) as an
// init segment declares it; the sample entry of each codec: ISO/IEC 14496-15 §5.4.2 (avc1), §8.4.1 (hvc1), AV1
// Codec ISO Media File Format Binding §2.2 (av01), ISO/IEC 14496-14 §5.6 (mp4a), Opus in ISOBMFF §4.3 (Opus).

/// One track of a fragmented MP4: its ID, codec configuration and the sizes and rates read from it.
public struct MP4Track: Sendable, Equatable {
    /// The codec and its configuration, as the FLV sequence header carries it (already parsed).
    public enum Codec: Sendable, Equatable {
        case avc(AVCDecoderConfigurationRecord)
        case hevc(HEVCDecoderConfigurationRecord)
        case av1(AV1CodecConfigurationRecord)
        /// VP9: its vpcC record says no picture size, so the track is given the key frames' size.
        case vp9(VPCodecConfigurationRecord, width: Int, height: Int)
        /// VP8, as VP9: a vpcC record and the key frames' size.
        case vp8(VPCodecConfigurationRecord, width: Int, height: Int)
        case aac(AudioSpecificConfig)
        case opus(OpusIDHeader)

        /// True for the video codecs.
        public var isVideo: Bool {
            switch self {
            case .avc, .hevc, .av1, .vp9, .vp8: true
            case .aac, .opus: false
            }
        }
    }

    /// track_ID (1 or more, unique in the file).
    public let id: UInt32
    public let codec: Codec
    /// The media timescale: `videoTimescale` for video, the sample rate for audio.
    public let timescale: UInt32
    /// Picture size from the SPS or sequence header (0 for audio).
    public let width: Int
    public let height: Int
    /// Channel count and sample rate from the AudioSpecificConfig or OpusHead (0 for video).
    public let channelCount: Int
    public let sampleRate: Int
    /// The media time (in `timescale`) the presentation starts at, written as an edit list (`edts`/`elst`): an audio
    /// encoder's priming, and the same start on the other tracks so they stay in sync. Nil: no edit list, every sample
    /// is presented at its composition time.
    public var presentationStart: Int64?
    /// Audio: samples of encoder priming (in `timescale`), also written as an AAC track's iTunSMPB (`ITunSMPBBox`)
    /// for readers that take priming from there. 0: none.
    public var priming: UInt32 = 0

    /// 90 kHz: the clock of MPEG systems, a multiple of every common frame rate and of FLV's milliseconds.
    public static let videoTimescale: UInt32 = 90_000
    /// Opus always decodes at 48 kHz, whatever rate OpusHead says the input had.
    public static let opusSampleRate = 48_000
    /// channelcount when a program_config_element gives the layout; decoders read the AudioSpecificConfig.
    static let programConfigChannelCount = 2

    /// A track of `codec` numbered `id`; the picture size, channels and rate come from the configuration, and a
    /// configuration without the parameter set or sequence header that gives them throws.
    public init(id: UInt32, codec: Codec) throws {
        guard id > 0 else { throw MediaFormatError.invalid(structure: "tkhd", reason: "track_ID 0") }
        self.id = id
        self.codec = codec
        var size = (width: 0, height: 0)
        var audio = (channels: 0, rate: 0)
        switch codec {
        case .avc(let record):
            guard let first = record.sequenceParameterSets.first else {
                throw MediaFormatError.invalid(structure: "avcC", reason: "no SPS to take the picture size from")
            }
            let sps = try SequenceParameterSet(parsing: first)
            size = (sps.width, sps.height)
        case .hevc(let record):
            guard let sps = try record.sequenceParameterSet() else {
                throw MediaFormatError.invalid(structure: "hvcC", reason: "no SPS to take the picture size from")
            }
            size = (sps.width, sps.height)
        case .av1(let record):
            guard let header = try record.sequenceHeader() else {
                throw MediaFormatError.invalid(structure: "av1C", reason: "no sequence header to take the picture size from")
            }
            size = (header.maxFrameWidth, header.maxFrameHeight)
        case let .vp9(_, width, height), let .vp8(_, width, height):
            guard (1...Int(UInt16.max)).contains(width), (1...Int(UInt16.max)).contains(height) else {
                throw MediaFormatError.invalid(structure: "vpcC", reason: "picture size \(width)x\(height) (VP8's and VP9's size comes from their key frames)")
            }
            size = (width, height)
        case .aac(let config):
            audio = (config.channelCount ?? Self.programConfigChannelCount, config.outputSamplingFrequency)
        case .opus(let header):
            audio = (Int(header.channelCount), Self.opusSampleRate)
        }
        guard codec.isVideo || (1...Int(UInt32.max)).contains(audio.rate) else {
            throw MediaFormatError.invalid(structure: "mdhd", reason: "sample rate \(audio.rate) Hz as a timescale")
        }
        (width, height) = size
        (channelCount, sampleRate) = audio
        timescale = codec.isVideo ? Self.videoTimescale : UInt32(audio.rate)
    }

    /// True for a video track.
    public var isVideo: Bool { codec.isVideo }

    /// The duration of every sample in the timescale when the codec fixes it: an AAC frame is 1024 samples (960 with
    /// frameLengthFlag; 512 or 480 for the low-delay types, ISO/IEC 14496-3 §4.5.1.1), twice that at the SBR output
    /// rate. Nil for video and Opus, whose packets vary.
    public var constantSampleDuration: UInt32? {
        guard case .aac(let config) = codec else { return nil }
        let lowDelay = config.coreObjectType == AudioObjectType.erAACLD || config.coreObjectType == AudioObjectType.erAACELD
        let coreSamples = lowDelay ? (config.frameLengthFlag ? 480 : 512) : (config.frameLengthFlag ? 960 : 1024)
        return UInt32(coreSamples * (config.outputSamplingFrequency / max(config.samplingFrequency, 1)))
    }

    /// The sample entry for `stsd`.
    public func sampleEntry() throws -> any MP4Box {
        switch codec {
        case .avc(let record):
            return try VisualSampleEntry(type: VisualSampleEntry.avc1, width: width, height: height,
                                         configuration: MP4OpaqueBox("avcC", payload: try record.serialized()))
        case .hevc(var record):
            // hvc1 promises every parameter set is in hvcC (none in the samples): array_completeness 1.
            for index in record.arrays.indices
            where [.videoParameterSet, .sequenceParameterSet, .pictureParameterSet].contains(record.arrays[index].nalUnitType) {
                record.arrays[index].completeness = true
            }
            return try VisualSampleEntry(type: VisualSampleEntry.hvc1, width: width, height: height,
                                         configuration: MP4OpaqueBox("hvcC", payload: try record.serialized()))
        case .av1(let record):
            return try VisualSampleEntry(type: VisualSampleEntry.av01, width: width, height: height,
                                         configuration: MP4OpaqueBox("av1C", payload: try record.serialized()))
        case .vp9(let record, _, _):
            // VP Codec ISO Media File Format Binding §2.2: vpcC is a FullBox (version 1); the record writes its header.
            return try VisualSampleEntry(type: VisualSampleEntry.vp09, width: width, height: height,
                                         configuration: MP4OpaqueBox("vpcC", payload: try record.serialized()))
        case .vp8(let record, _, _):
            return try VisualSampleEntry(type: VisualSampleEntry.vp08, width: width, height: height,
                                         configuration: MP4OpaqueBox("vpcC", payload: try record.serialized()))
        case .aac(let config):
            return try AudioSampleEntry(type: AudioSampleEntry.mp4a, channelCount: channelCount, sampleRate: sampleRate,
                                        configuration: ElementaryStreamDescriptorBox(audioSpecificConfig: config))
        case .opus(let header):
            return try AudioSampleEntry(type: AudioSampleEntry.opus, channelCount: channelCount, sampleRate: sampleRate,
                                        configuration: OpusSpecificBox(header: header))
        }
    }

    /// The `trak` box of an init segment: headers, handler, and an empty sample table around the sample entry.
    public func trackBox() throws -> MP4ContainerBox {
        let mediaHeader: any MP4Box = isVideo ? VideoMediaHeaderBox() : SoundMediaHeaderBox()
        let handler = isVideo ? HandlerBox(handlerType: HandlerBox.video, name: "VideoHandler")
            : HandlerBox(handlerType: HandlerBox.sound, name: "SoundHandler")
        let sampleTable = MP4ContainerBox("stbl", [SampleDescriptionBox(entries: [try sampleEntry()])] + EmptySampleTableBox.all)
        var children: [any MP4Box] = [try TrackHeaderBox(trackID: id, isAudio: !isVideo, width: width, height: height)]
        if let presentationStart { children.append(MP4ContainerBox("edts", [EditListBox.starting(atMediaTime: presentationStart)])) }
        children.append(MP4ContainerBox("mdia", [
            MediaHeaderBox(timescale: timescale),
            handler,
            MP4ContainerBox("minf", [mediaHeader, MP4ContainerBox("dinf", [DataReferenceBox()]), sampleTable]),
        ]))
        // iTunSMPB is AAC's (iTunes' gapless data); Opus's pre-skip is in its dOps and the edit list.
        if priming > 0, case .aac = codec { children.append(ITunSMPBBox(priming: priming)) }
        return MP4ContainerBox("trak", children)
    }
}
