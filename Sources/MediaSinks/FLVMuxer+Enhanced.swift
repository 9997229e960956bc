// Enhanced RTMP v2 (veovera/enhanced-rtmp), "Enhanced Video": HEVC, AV1, VP9 and VP8 in FLV as FFmpeg 6.1+'s flvenc writes them.
import MediaFormats

/// HEVC, AV1, VP9 and VP8 tags: an ex-header (IsExHeader, FrameType, VideoPacketType, FourCC) instead of the legacy CodecID.
extension FLVMuxer {
    /// `onMetaData`'s `videocodecid`: the legacy CodecID for H.264 (7); for an enhanced codec its FourCC read as a
    /// big-endian number, as FFmpeg 6.1+ writes it (`hvc1` = 1752589105).
    package static func videoCodecID(_ bitstream: VideoBitstream) -> Double {
        guard let fourCC = bitstream.enhancedFourCC else { return Double(FLVVideoCodecID.avc.rawValue) }
        return Double(fourCC.rawValue)
    }

    /// `onMetaData`'s `audiocodecid`: the legacy SoundFormat for AAC (10); Opus's FourCC read as a big-endian number.
    package static func audioCodecID(_ bitstream: AudioBitstream) -> Double {
        switch bitstream {
        case .aac: Double(FLVSoundFormat.aac.rawValue)
        case .opus: Double(FLVAudioFourCC.opus.rawValue)
        }
    }

    /// A SequenceStart tag carrying the hvcC, av1C or vpcC record (vpcC with its FullBox version and flags).
    package mutating func writeEnhancedSequenceStart(_ bitstream: VideoBitstream, timestamp: Int64, into buffer: inout some FLVTagDestination) throws {
        let record: [UInt8]
        let fourCC: FLVVideoFourCC
        switch bitstream {
        case let .hvcc(hvcC):
            record = try hvcC.serialized()
            fourCC = .hvc1
        case let .av1(av1C):
            record = try av1C.serialized()
            fourCC = .av01
        case let .vp9(vpcC):
            record = try vpcC.serialized()
            fourCC = .vp09
        case let .vp8(vpcC):
            record = try vpcC.serialized()
            fourCC = .vp08
        case .avcc, .annexB:
            throw MediaFormatError.invalid(structure: "FLV video", reason: "H.264 takes the legacy AVC sequence header")
        }
        let data = FLVVideoData(frameType: .keyFrame, packetType: .sequenceStart, fourCC: fourCC, payload: record[...])
        try flv.writeVideo(timestamp: timestamp, data: data, into: &buffer)
        wroteVideoSequenceHeader = true
    }

    /// A coded frame: CodedFramesX when the composition time is 0 (or the codec has none, as AV1), else CodedFrames
    /// with its signed 24-bit offset. The payload is the sample as the container stored it (hvcC length prefixes, OBUs).
    package mutating func writeEnhancedFrame(_ packet: MediaPacket, fourCC: FLVVideoFourCC, timestamp: Int64, compositionTime: Int32,
                                     into buffer: inout some FLVTagDestination) throws {
        guard wroteVideoSequenceHeader else {
            skippedBeforeConfiguration += 1
            return
        }
        let carriesOffset = fourCC.carriesCompositionTime && compositionTime != 0
        let data = FLVVideoData(frameType: packet.isKeyframe ? .keyFrame : .interFrame,
                                packetType: carriesOffset ? .codedFrames : .codedFramesX, fourCC: fourCC,
                                compositionTime: carriesOffset ? compositionTime : 0, payload: packet.data[...])
        try flv.writeVideo(timestamp: timestamp, data: data, into: &buffer)
    }
}
