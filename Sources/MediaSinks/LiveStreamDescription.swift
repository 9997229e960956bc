import MediaFormats
import MediaJob

/// What a live input's first tags say about its streams: each kind's codec and configuration record, the frame rate
/// its `onMetaData` announces, and any codec the codec job cannot take, named (never a silent "no packets").
package struct LiveStreamDescription {
    /// The video codec and its configuration record (avcC, hvcC, av1C or vpcC: the sequence start's body).
    package var videoCodec: LiveMediaTag.Codec?
    package var videoConfiguration: [UInt8]?
    /// The audio codec and its configuration record (an AudioSpecificConfig or an OpusHead).
    package var audioCodec: LiveMediaTag.Codec?
    package var audioConfiguration: [UInt8]?
    package var announcedFrameRate: Double?
    /// The picture size when the configuration record does not say it (VP8's and VP9's vpcC): the first key frame's, or
    /// else `onMetaData`'s width and height.
    package var pictureSize: (width: Int, height: Int)?
    package var firstFrameTime: Int64?
    package var lastTime: Int64 = 0

    /// How long after its first frame a stream waits for a sequence header it has not seen before it is
    /// described without that stream (FFmpeg's flv demuxer probes the same way).
    package static let probeMilliseconds: Int64 = 3000

    package init() {}

    /// The FLV video codec ids (E.4.3.1) and Enhanced RTMP FourCCs Sluice names in messages.
    package static func videoCodecName(_ body: [UInt8]) -> String {
        guard let first = body.first else { return "an empty video tag" }
        if first & 0x80 != 0 {
            // Enhanced RTMP (multitrack included): the FourCC of the first track.
            guard let data = try? FLVVideoData(parsing: body), let track = data.tracks.first, case let .fourCC(fourCC) = track.codec else {
                return "a codec in an Enhanced RTMP tag that does not parse"
            }
            let names: [FLVVideoFourCC: String] = [.hvc1: "HEVC", .av01: "AV1", .vp09: "VP9", .vp08: "VP8", .vvc1: "H.266", .avc1: "H.264"]
            return "\(names[fourCC] ?? "\(fourCC)") (FourCC \(fourCC), Enhanced RTMP\(data.multitrackType == nil ? "" : ", multitrack"))"
        }
        let names: [UInt8: String] = [2: "Sorenson H.263", 3: "Screen video", 4: "On2 VP6", 5: "On2 VP6 with alpha",
                                      6: "Screen video v2", 7: "H.264", 12: "HEVC (FLV codec id 12)", 13: "AV1 (FLV codec id 13)"]
        return names[first & 0x0F] ?? "FLV video codec id \(first & 0x0F)"
    }

    /// The FLV sound formats (E.4.2.1) and Enhanced RTMP audio FourCCs.
    package static func audioCodecName(_ body: [UInt8]) -> String {
        guard let first = body.first else { return "an empty audio tag" }
        let format = first >> 4
        if format == 9 {
            guard let data = try? FLVAudioData(parsing: body), let track = data.tracks.first, case let .fourCC(fourCC) = track.codec else {
                return "a codec in an Enhanced RTMP tag that does not parse"
            }
            let names: [FLVAudioFourCC: String] = [.opus: "Opus", .mp4a: "AAC", .ac3: "AC-3", .ec3: "E-AC-3", .flac: "FLAC", .mp3: "MP3"]
            return "\(names[fourCC] ?? "\(fourCC)") (FourCC \(fourCC), Enhanced RTMP)"
        }
        let names: [UInt8: String] = [0: "linear PCM", 1: "ADPCM", 2: "MP3", 3: "linear PCM (little endian)",
                                      4: "Nellymoser 16 kHz", 5: "Nellymoser 8 kHz", 6: "Nellymoser", 7: "G.711 A-law",
                                      8: "G.711 mu-law", 10: "AAC", 11: "Speex", 14: "MP3 8 kHz", 15: "device-specific sound"]
        return names[format] ?? "FLV sound format \(format)"
    }

    /// Takes one tag; throws when it carries a codec the job cannot take (a kind the job drops is never looked at).
    package mutating func take(_ tag: FLVStreamTag, video wantsVideo: Bool, audio wantsAudio: Bool) throws(MediaJobError) {
        lastTime = max(lastTime, tag.timestamp)
        switch tag.type {
        case .video where wantsVideo:
            guard !tag.data.isEmpty else { return }
            let media = try LiveMediaTag(video: tag.data)
            if let record = configure(media, at: tag.timestamp) { (videoCodec, videoConfiguration) = (media.codec, record) }
            if case let .frame(data, _, true) = media.content, let codec = videoCodec, codec == .vp8 || codec == .vp9,
               let keyframe = try? (codec == .vp8 ? VPXKeyframe(vp8: data) : VPXKeyframe(vp9: data)) {
                pictureSize = (keyframe.width, keyframe.height)
            }
        case .audio where wantsAudio:
            guard !tag.data.isEmpty else { return }
            let media = try LiveMediaTag(audio: tag.data)
            if let record = configure(media, at: tag.timestamp) { (audioCodec, audioConfiguration) = (media.codec, record) }
        case .scriptData:
            var reader = ByteReader(tag.data)
            guard let data = try? FLVScriptData(parsing: &reader), data.name == "onMetaData" else { return }
            if let rate = data.value["framerate"]?.numberValue, rate.isFinite, rate > 0, rate <= 240 {
                announcedFrameRate = rate
            }
            if pictureSize == nil, let width = data.value["width"]?.numberValue, let height = data.value["height"]?.numberValue,
               (1...16384).contains(width), (1...16384).contains(height) {
                pictureSize = (Int(width), Int(height))
            }
        default:
            return
        }
    }

    /// The configuration record a tag carries; a frame starts the probe clock.
    private mutating func configure(_ media: LiveMediaTag, at time: Int64) -> [UInt8]? {
        switch media.content {
        case let .configuration(record) where !record.isEmpty:
            return record
        case .frame:
            if firstFrameTime == nil { firstFrameTime = time }
            return nil
        default:
            return nil
        }
    }

    /// Whether every stream the job takes is configured (and VP8 or VP9 sized), or the probe time after the first frame
    /// has passed.
    package func isComplete(video wantsVideo: Bool, audio wantsAudio: Bool) -> Bool {
        // VP8's and VP9's size is in their key frames: the first one, which follows the configuration at once.
        let sized = pictureSize != nil || (videoCodec != .vp8 && videoCodec != .vp9)
        if (videoConfiguration != nil && sized || !wantsVideo) && (audioConfiguration != nil || !wantsAudio) { return true }
        guard let firstFrameTime else { return false }
        return lastTime - firstFrameTime >= LiveStreamDescription.probeMilliseconds
    }
}

extension LiveStreamDescription {
    /// Frame rates a stream's own timing may say; outside this (num_units_in_tick / time_scale of 2^32 − 1 against 1)
    /// it is ignored, since such a rate gives every frame the same or an absurd time.
    package static let plausibleFrameRates: ClosedRange<Double> = 0.5...1000

    /// A video stream's size and rate from its configuration record's SPS (or AV1 sequence header); zero and nil
    /// where the parameter set does not say or does not parse (the decoder finds out), VP9's vpcC only checked.
    /// - Throws: `invalidStream` when the record itself does not parse, or names an audio codec.
    package static func videoGeometry(codec: LiveMediaTag.Codec, record: [UInt8], index: Int)
        throws(MediaJobError) -> (width: Int, height: Int, frameRate: Double?)
    {
        do {
            switch codec {
            case .h264:
                let avcC = try AVCDecoderConfigurationRecord(parsing: record)
                let sps = avcC.sequenceParameterSets.first.flatMap { try? SequenceParameterSet(parsing: $0) }
                return (sps?.width ?? 0, sps?.height ?? 0, sps?.frameRate)
            case .hevc:
                let hvcC = try HEVCDecoderConfigurationRecord(parsing: record)
                let sps = try? hvcC.sequenceParameterSet()
                return (sps?.width ?? 0, sps?.height ?? 0, sps?.frameRate)
            case .av1:
                let av1C = try AV1CodecConfigurationRecord(parsing: record)
                let header = try? av1C.sequenceHeader()
                return (header?.maxFrameWidth ?? 0, header?.maxFrameHeight ?? 0, header?.frameRate)
            case .vp9, .vp8:
                _ = try VPCodecConfigurationRecord(parsing: record)
                return (0, 0, nil)
            case .aac, .opus:
                throw MediaFormatError.invalid(structure: "live video", reason: "\(codec.rawValue) is an audio codec")
            }
        } catch let error as MediaFormatError {
            throw .invalidStream(kind: "video", stream: index, error)
        } catch {
            throw .invalidStream(kind: "video", stream: index, .invalid(structure: "\(codec.rawValue) configuration", reason: "\(error)"))
        }
    }
}
