// ISO/IEC 14496-15 (2019) §5.3 and §8.3 samples and records → ITU-T H.264/H.265 Annex B; an AudioSpecificConfig
// (ISO/IEC 14496-3 §1.6.2.1) or OpusHead (RFC 7845 §5.1) → the TS stream it configures. What `FLVToTSConverter` keeps
// of each kind's sequence header, and how it turns that kind's frames into `TSMuxer` access units.

/// One audio or video frame read from a tag, waiting for (or going to) the muxer.
struct FLVToTSFrame: Sendable {
    var isVideo: Bool
    /// ms (the DTS for video).
    var timestamp: Int64
    /// PTS − DTS, ms.
    var compositionTime: Int32
    var isKeyframe: Bool
    /// Length-prefixed NAL units, a raw AAC frame or an Opus packet.
    var payload: ArraySlice<UInt8>
}

/// The video configuration: codec, record, and the converter to Annex B that inserts its parameter sets.
struct FLVToTSVideo: Sendable {
    let codec: TSStreamCodec
    /// The avcC or hvcC, given to the muxer as extradata.
    let record: [UInt8]
    /// `AVCCToAnnexBConverter` or `HVCCToAnnexBConverter`.
    private var converter: any LengthPrefixedToAnnexBConverter & Sendable

    /// The TS codec of an FLV video codec.
    /// - Throws: `FLVToTSError.unsupportedVideoCodec` for a codec other than AVC and HEVC.
    static func tsCodec(of codec: FLVVideoCodec) throws(FLVToTSError) -> TSStreamCodec {
        switch codec {
        case .fourCC(.hvc1): .hevc
        case .legacy(.avc), .fourCC(.avc1): .h264
        case let .fourCC(fourCC): throw .unsupportedVideoCodec(fourCC.description)
        case let .legacy(codecID): throw .unsupportedVideoCodec("CodecID \(codecID.rawValue)")
        }
    }

    /// The configuration a sequence header gives; throws on a record that does not parse.
    init(codec flvCodec: FLVVideoCodec, record: [UInt8]) throws {
        codec = try Self.tsCodec(of: flvCodec)
        self.record = record
        converter = codec == .hevc ? try HVCCToAnnexBConverter(record: HEVCDecoderConfigurationRecord(parsing: record))
            : try AVCCToAnnexBConverter(record: AVCDecoderConfigurationRecord(parsing: record))
    }

    /// The access unit of one frame: Annex B, with the parameter sets before a keyframe.
    mutating func accessUnit(_ frame: FLVToTSFrame, pid: UInt16, dts: Int64, pts: Int64) throws -> TSMuxer.AccessUnit {
        var bytes: [UInt8] = []
        let isKeyframe = try frame.payload.withUnsafeBytes { try converter.convert($0, into: &bytes) }
        return TSMuxer.AccessUnit(pid: pid, pts: pts, dts: dts == pts ? nil : dts,
                                  isKeyframe: isKeyframe || frame.isKeyframe, payload: bytes)
    }
}

/// The audio configuration: the TS codec, and for AAC the configuration its ADTS headers are written from.
struct FLVToTSAudio: Sendable {
    let codec: TSStreamCodec
    let audioSpecificConfig: AudioSpecificConfig?

    /// Checks that an FLV audio codec has a TS mapping here.
    /// - Throws: `FLVToTSError.unsupportedAudioCodec` for a codec other than AAC and Opus.
    static func checkSupported(_ codec: FLVAudioCodec) throws(FLVToTSError) {
        switch codec {
        case .legacy(.aac), .fourCC(.mp4a), .fourCC(.opus): return
        case let .fourCC(fourCC): throw .unsupportedAudioCodec(fourCC.description)
        case let .legacy(format): throw .unsupportedAudioCodec("SoundFormat \(format.rawValue)")
        }
    }

    /// The configuration a sequence header gives; throws on one that does not parse, and `FLVToTSError` for an Opus
    /// channel layout the TS Opus descriptor cannot signal.
    init(codec flvCodec: FLVAudioCodec, configuration: [UInt8]) throws {
        try Self.checkSupported(flvCodec)
        guard flvCodec == .fourCC(.opus) else {
            codec = .aac
            audioSpecificConfig = try AudioSpecificConfig(parsing: configuration)
            return
        }
        let head = try OpusIDHeader(parsing: configuration)
        do {
            codec = .opus(try OpusAudioDescriptor(idHeader: head))
        } catch {
            throw FLVToTSError.unsupportedAudioCodec(
                "Opus with \(head.channelCount) channels in mapping family \(head.channelMappingFamily)")
        }
        audioSpecificConfig = nil
    }

    /// The access unit of one frame (the muxer adds the ADTS or Opus control header).
    func accessUnit(_ frame: FLVToTSFrame, pid: UInt16, pts: Int64) -> TSMuxer.AccessUnit {
        TSMuxer.AccessUnit(pid: pid, pts: pts, isKeyframe: true, payload: Array(frame.payload),
                           audioSpecificConfig: audioSpecificConfig)
    }
}
