import MediaFormats

/// FLV to a file or an RTMP publish: header, `onMetaData`, sequence headers before media and again
/// whenever SPS/PPS or the AudioSpecificConfig change, composition time = PTS − DTS.
final class FLVSink: PacketSink {
    let writer: TargetWriter
    private let name: String
    private var video: VideoConfiguration?
    private var audio: AudioConfiguration?
    private var flv = FLVWriter()
    private var buffer: [UInt8] = []
    private var scratch: [UInt8] = []
    private var annexBConverter: AnnexBToAVCCConverter?
    private var wroteVideoSequenceHeader = false
    private var metadataOffsets: [String: Int] = [:]
    private var metadataStart: Int64 = 0
    private var lastTimestamp: Int64 = 0
    private var firstTimestamp: Int64?
    /// Video packets dropped because no SPS/PPS had been seen yet (a stream cut mid-GOP).
    private(set) var skippedBeforeConfiguration = 0

    let wantsVideo: Bool
    let wantsAudio: Bool
    var bytesWritten: Int64 { writer.sink.bytesWritten }

    init(writer: TargetWriter, name: String, video: VideoConfiguration?, audio: AudioConfiguration?) {
        self.writer = writer
        self.name = name
        self.video = video
        self.audio = audio
        self.wantsVideo = video != nil
        self.wantsAudio = audio != nil
        buffer.reserveCapacity(1 << 20)
        scratch.reserveCapacity(1 << 20)
    }

    func open() throws {
        flv.writeFileHeader(hasAudio: audio != nil, hasVideo: video != nil, into: &buffer)
        var metadata = FLVMetadata()
        metadata.duration = 0
        if let video {
            metadata.width = Double(video.width)
            metadata.height = Double(video.height)
            metadata.framerate = video.frameRate
            metadata.videocodecid = Double(FLVVideoCodecID.avc.rawValue)
        }
        if let audio {
            metadata.audiosamplerate = Double(audio.sampleRate)
            metadata.audiosamplesize = 16
            metadata.stereo = audio.channels >= 2
            metadata.audiocodecid = Double(FLVSoundFormat.aac.rawValue)
        }
        metadata.filesize = 0
        metadata.encoder = "Sluice"
        metadataStart = writer.sink.position + Int64(buffer.count)
        metadataOffsets = try flv.writeScriptData(name: "onMetaData", value: metadata.amf0Value, into: &buffer)
        if let video {
            switch video.bitstream {
            case let .avcc(record):
                try writeVideoSequenceHeader(record, timestamp: 0)
            case let .annexB(extradata):
                let converter = extradata.isEmpty ? AnnexBToAVCCConverter() : try AnnexBToAVCCConverter(extradata: extradata)
                if let record = converter.record { try writeVideoSequenceHeader(record, timestamp: 0) }
                annexBConverter = converter
            }
        }
        if let audio { try writeAudioSequenceHeader(audio.audioSpecificConfig, timestamp: 0) }
        try flush()
    }

    private func writeVideoSequenceHeader(_ record: AVCDecoderConfigurationRecord, timestamp: Int64) throws {
        var payload: [UInt8] = []
        try record.write(into: &payload)
        try flv.writeVideo(timestamp: timestamp, compositionTime: 0, isKeyframe: true, packetType: .sequenceHeader, payload: payload, into: &buffer)
        wroteVideoSequenceHeader = true
    }

    private func writeAudioSequenceHeader(_ config: AudioSpecificConfig, timestamp: Int64) throws {
        try flv.writeAudio(timestamp: timestamp, aacPacketType: .sequenceHeader, payload: config.bytes, into: &buffer)
    }

    func write(_ packet: MediaPacket) throws {
        let timestamp = milliseconds(packet.dts)
        if firstTimestamp == nil { firstTimestamp = timestamp }
        lastTimestamp = max(lastTimestamp, timestamp)
        switch packet.kind {
        case .video:
            if let changed = packet.videoConfiguration {
                video = changed
                switch changed.bitstream {
                case let .avcc(record):
                    annexBConverter = nil
                    try writeVideoSequenceHeader(record, timestamp: timestamp)
                case let .annexB(extradata):
                    // In-band parameter sets are found by the converter below; new extradata seeds it.
                    if !extradata.isEmpty { annexBConverter = try AnnexBToAVCCConverter(extradata: extradata) }
                }
            }
            let composition = Int32(clamping: milliseconds(packet.pts).subtractingSaturating(timestamp))
            if var converter = annexBConverter {
                scratch.removeAll(keepingCapacity: true)
                let result = try packet.data.withUnsafeBytes { try converter.convert($0, into: &scratch) }
                annexBConverter = converter
                if result.parameterSetsChanged, let record = converter.record {
                    try writeVideoSequenceHeader(record, timestamp: timestamp)
                }
                guard wroteVideoSequenceHeader, !scratch.isEmpty else {
                    skippedBeforeConfiguration += 1
                    return
                }
                try flv.writeVideo(timestamp: timestamp, compositionTime: composition, isKeyframe: result.isKeyframe,
                                   packetType: .nalu, payload: scratch, into: &buffer)
            } else {
                guard wroteVideoSequenceHeader else {
                    skippedBeforeConfiguration += 1
                    return
                }
                try packet.data.withUnsafeBytes {
                    try flv.writeVideo(timestamp: timestamp, compositionTime: composition, isKeyframe: packet.isKeyframe,
                                       packetType: .nalu, payload: $0, into: &buffer)
                }
            }
        case .audio:
            if let changed = packet.audioConfiguration, changed != audio {
                audio = changed
                try writeAudioSequenceHeader(changed.audioSpecificConfig, timestamp: timestamp)
            }
            try packet.data.withUnsafeBytes {
                try flv.writeAudio(timestamp: timestamp, aacPacketType: .raw, payload: $0, into: &buffer)
            }
        }
        try flush()
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        try writer.sink.write(buffer)
        buffer.removeAll(keepingCapacity: true)
        // AVIO would hold a small tag in its buffer until 32 KB gather: a live destination gets it now.
        if writer.isNetwork { try writer.sink.flush() }
    }

    func finish() throws {
        try flush()
        // A seekable file gets its real duration and size, as FFmpeg's flvenc does (an RTMP publish
        // reports itself seekable, but a seek there means something else).
        if !writer.isNetwork && writer.sink.isSeekable {
            let duration = (Double(lastTimestamp) - Double(firstTimestamp ?? 0)) / 1000
            if let offset = metadataOffsets["duration"] {
                var bytes: [UInt8] = []
                bytes.appendFloat64(duration)
                try writer.sink.patch(at: metadataStart + Int64(offset), with: bytes)
            }
            if let offset = metadataOffsets["filesize"] {
                var bytes: [UInt8] = []
                bytes.appendFloat64(Double(writer.sink.position))
                try writer.sink.patch(at: metadataStart + Int64(offset), with: bytes)
            }
        }
        try writer.close()
    }

    func abandon() { writer.discard() }
}
