import MediaFormats

/// What a live input's first tags say about its streams: the AVC and AAC configurations, the frame rate its
/// `onMetaData` announces, and any codec the pipeline cannot take, named (never a silent "no packets").
struct LiveStreamDescription {
    /// An avcC record (the AVC sequence header's body).
    var videoConfiguration: [UInt8]?
    /// An AudioSpecificConfig (the AAC sequence header's body).
    var audioConfiguration: [UInt8]?
    var announcedFrameRate: Double?
    var firstFrameTime: Int64?
    var lastTime: Int64 = 0

    /// How long after its first frame a stream waits for a sequence header it has not seen before it is
    /// described without that stream (FFmpeg's flv demuxer probes the same way).
    static let probeMilliseconds: Int64 = 3000

    /// The FLV video codec ids (E.4.3.1) and Enhanced RTMP FourCCs Sluice names in messages.
    static func videoCodecName(_ body: [UInt8]) -> String {
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
    static func audioCodecName(_ body: [UInt8]) -> String {
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

    /// True for an AVC video tag (legacy codec id 7, no ex-header).
    static func isAVC(_ body: [UInt8]) -> Bool { body.count >= 2 && body[0] & 0x80 == 0 && body[0] & 0x0F == 7 }

    /// True for an AAC audio tag (sound format 10).
    static func isAAC(_ body: [UInt8]) -> Bool { body.count >= 2 && body[0] >> 4 == 10 }

    /// Takes one tag; throws when it carries a codec the job cannot take (a kind the job drops is never looked at).
    mutating func take(_ tag: FLVTagMessage, video wantsVideo: Bool, audio wantsAudio: Bool) throws(PipelineError) {
        lastTime = max(lastTime, tag.timestamp)
        switch tag.typeID {
        case FLVTagMessage.video where wantsVideo:
            guard !tag.body.isEmpty else { return }
            guard LiveStreamDescription.isAVC(tag.body) else {
                throw .unsupportedLiveCodec(kind: "video", codec: LiveStreamDescription.videoCodecName(tag.body))
            }
            if tag.body[1] == 0, tag.body.count > 5 {
                videoConfiguration = Array(tag.body[5...])
            } else if tag.body[1] == 1, firstFrameTime == nil {
                firstFrameTime = tag.timestamp
            }
        case FLVTagMessage.audio where wantsAudio:
            guard !tag.body.isEmpty else { return }
            guard LiveStreamDescription.isAAC(tag.body) else {
                throw .unsupportedLiveCodec(kind: "audio", codec: LiveStreamDescription.audioCodecName(tag.body))
            }
            if tag.body[1] == 0, tag.body.count > 2 {
                audioConfiguration = Array(tag.body[2...])
            } else if firstFrameTime == nil {
                firstFrameTime = tag.timestamp
            }
        case FLVTagMessage.scriptData:
            var reader = ByteReader(tag.body)
            if let data = try? FLVScriptData(parsing: &reader), data.name == "onMetaData",
               let rate = data.value["framerate"]?.numberValue, rate.isFinite, rate > 0, rate <= 240 {
                announcedFrameRate = rate
            }
        default:
            return
        }
    }

    /// Whether every stream the job takes is configured, or the probe time after the first frame has passed.
    func isComplete(video wantsVideo: Bool, audio wantsAudio: Bool) -> Bool {
        if (videoConfiguration != nil || !wantsVideo) && (audioConfiguration != nil || !wantsAudio) { return true }
        guard let firstFrameTime else { return false }
        return lastTime - firstFrameTime >= LiveStreamDescription.probeMilliseconds
    }
}
