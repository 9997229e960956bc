import MediaFormats

/// The FLV tags of a job's stream: `onMetaData`, sequence headers before media and again whenever SPS/PPS or
/// the AudioSpecificConfig change, AVCC video (Annex B input converted), composition time = PTS − DTS. H.264 and AAC
/// keep the legacy tags; HEVC, AV1, VP9, VP8 and Opus get Enhanced RTMP ex-headers (`FLVMuxer+Enhanced.swift`). No I/O: it
/// appends tags to a buffer, which `FLVSink` writes to a file and `RelayPublishOutput` hands to the relay engine.
package struct FLVMuxer {
    package private(set) var video: VideoConfiguration?
    package private(set) var audio: AudioConfiguration?
    package let flv = FLVWriter()
    private var avccPayload: [UInt8] = []
    private var annexBConverter: AnnexBToAVCCConverter?
    package var wroteVideoSequenceHeader = false
    package private(set) var lastTimestamp: Int64 = 0
    package private(set) var firstTimestamp: Int64?
    /// Video packets dropped because no SPS/PPS had been seen yet (a stream cut mid-GOP).
    package var skippedBeforeConfiguration = 0

    package init(video: VideoConfiguration?, audio: AudioConfiguration?) {
        self.video = video
        self.audio = audio
    }

    /// Appends `onMetaData` (at time 0) and the sequence headers; returns the offsets of `onMetaData`'s numeric
    /// properties relative to where this call started appending (see `FLVWriter.writeScriptData`).
    package mutating func writeStart(into buffer: inout some FLVTagDestination) throws -> [String: Int] {
        var metadata = FLVMetadata()
        metadata.duration = 0
        if let video {
            metadata.width = Double(video.width)
            metadata.height = Double(video.height)
            metadata.framerate = video.frameRate
            metadata.videocodecid = Self.videoCodecID(video.bitstream)
        }
        if let audio {
            metadata.audiosamplerate = Double(audio.sampleRate)
            metadata.audiosamplesize = 16
            metadata.stereo = audio.channels >= 2
            metadata.audiocodecid = Self.audioCodecID(audio.bitstream)
        }
        metadata.filesize = 0
        metadata.encoder = "Sluice"
        let offsets = try flv.writeScriptData(name: "onMetaData", value: metadata.amf0Value, into: &buffer)
        if let video {
            switch video.bitstream {
            case let .avcc(record):
                try writeVideoSequenceHeader(record, timestamp: 0, into: &buffer)
            case let .annexB(extradata):
                let converter = extradata.isEmpty ? AnnexBToAVCCConverter() : try AnnexBToAVCCConverter(extradata: extradata)
                if let record = converter.record { try writeVideoSequenceHeader(record, timestamp: 0, into: &buffer) }
                annexBConverter = converter
            case .hvcc, .av1, .vp9, .vp8:
                try writeEnhancedSequenceStart(video.bitstream, timestamp: 0, into: &buffer)
            }
        }
        if let audio { try writeAudioSequenceHeader(audio.bitstream, timestamp: 0, into: &buffer) }
        return offsets
    }

    package mutating func writeVideoSequenceHeader(_ record: AVCDecoderConfigurationRecord, timestamp: Int64, into buffer: inout some FLVTagDestination) throws {
        var payload: [UInt8] = []
        try record.write(into: &payload)
        try flv.writeVideo(timestamp: timestamp, compositionTime: 0, isKeyframe: true, packetType: .sequenceHeader, payload: payload, into: &buffer)
        wroteVideoSequenceHeader = true
    }

    /// AAC's legacy sequence header, or Opus's SequenceStart (an Enhanced RTMP ex-header) carrying its OpusHead.
    private func writeAudioSequenceHeader(_ bitstream: AudioBitstream, timestamp: Int64, into buffer: inout some FLVTagDestination) throws {
        switch bitstream {
        case let .aac(config):
            try flv.writeAudio(timestamp: timestamp, aacPacketType: .sequenceHeader, payload: config.bytes, into: &buffer)
        case let .opus(header):
            let head = try header.serialized()
            try flv.writeAudio(timestamp: timestamp, data: FLVAudioData(packetType: .sequenceStart, fourCC: .opus, payload: head[...]), into: &buffer)
        }
    }

    /// Appends the tag(s) of one packet: a new sequence header first when its configuration changed.
    package mutating func write(_ packet: MediaPacket, into buffer: inout some FLVTagDestination) throws {
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
                    try writeVideoSequenceHeader(record, timestamp: timestamp, into: &buffer)
                case let .annexB(extradata):
                    // In-band parameter sets are found by the converter below; new extradata seeds it.
                    if !extradata.isEmpty { annexBConverter = try AnnexBToAVCCConverter(extradata: extradata) }
                case .hvcc, .av1, .vp9, .vp8:
                    annexBConverter = nil
                    try writeEnhancedSequenceStart(changed.bitstream, timestamp: timestamp, into: &buffer)
                }
            }
            let composition = Int32(clamping: milliseconds(packet.pts).subtractingSaturating(timestamp))
            if let fourCC = video?.bitstream.enhancedFourCC {
                try writeEnhancedFrame(packet, fourCC: fourCC, timestamp: timestamp, compositionTime: composition, into: &buffer)
            } else if var converter = annexBConverter {
                avccPayload.removeAll(keepingCapacity: true)
                let result = try packet.data.withUnsafeBytes { try converter.convert($0, into: &avccPayload) }
                annexBConverter = converter
                if result.parameterSetsChanged, let record = converter.record {
                    try writeVideoSequenceHeader(record, timestamp: timestamp, into: &buffer)
                }
                guard wroteVideoSequenceHeader, !avccPayload.isEmpty else {
                    skippedBeforeConfiguration += 1
                    return
                }
                try flv.writeVideo(timestamp: timestamp, compositionTime: composition, isKeyframe: result.isKeyframe,
                                   packetType: .nalu, payload: avccPayload, into: &buffer)
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
                try writeAudioSequenceHeader(changed.bitstream, timestamp: timestamp, into: &buffer)
            }
            switch audio?.bitstream {
            case .opus:
                try flv.writeAudio(timestamp: timestamp, data: FLVAudioData(packetType: .codedFrames, fourCC: .opus, payload: packet.data[...]), into: &buffer)
            case .aac, nil:
                try packet.data.withUnsafeBytes {
                    try flv.writeAudio(timestamp: timestamp, aacPacketType: .raw, payload: $0, into: &buffer)
                }
            }
        }
    }
}
