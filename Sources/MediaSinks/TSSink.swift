import MediaFormats
import MediaJob

/// An MPEG transport stream file (`.ts`): H.264 or HEVC in Annex B (`AnnexBConversion`, parameter sets before every
/// keyframe) and AAC in ADTS or Opus, through `TSMuxer` (PAT and PMT first and repeated, PCR on the video PID). A TS has no
/// trailer: the file is whole after every access unit.
package final class TSSink: PacketSink {
    package let file: FileWriter
    package let wantsVideo: Bool
    package let wantsAudio: Bool
    package var bytesWritten: Int64 { file.bytesWritten }
    private let name: String
    private var muxer: TSMuxer
    private var conversion: AnnexBConversion?
    private var audioSpecificConfig: AudioSpecificConfig?
    /// The audio's codec in the program (AAC, or Opus with its descriptor).
    private var audioCodec: TSStreamCodec?
    /// One access unit in Annex B form (kept to reuse its storage).
    private var annexB: [UInt8] = []

    /// Where the job's timeline starts on the 90 kHz clock: 1.4 s, as FFmpeg's muxer does, so that a receiver that
    /// buffers before the first PCR never sees a time below zero.
    package static let startTicks: Int64 = 126_000

    package init(file: FileWriter, name: String, video: VideoConfiguration?, audio: AudioConfiguration?) throws {
        self.file = file
        self.name = name
        var streams: [TSMuxer.Stream] = []
        if let video {
            streams.append(try TSSink.videoStream(video, output: name))
            conversion = try AnnexBConversion(video.bitstream)
        }
        if let audio {
            let stream = try TSSink.audioStream(audio, output: name)
            audioCodec = stream.codec
            streams.append(stream)
            audioSpecificConfig = audio.audioSpecificConfig
        }
        muxer = try TSMuxer(configuration: TSMuxer.Configuration(streams: streams))
        wantsVideo = video != nil
        wantsAudio = audio != nil
    }

    /// The video stream MPEG-TS carries here: H.264 or HEVC; AV1, VP9 and VP8 are refused by name.
    package static func videoStream(_ video: VideoConfiguration, output: String) throws -> TSMuxer.Stream {
        switch video.bitstream {
        case .avcc, .annexB: return .video(.h264)
        case .hvcc: return .video(.hevc)
        case .av1, .vp9, .vp8:
            throw OutputError.unsupported(output: output, reason: "the video is \(video.bitstream.codecName), which MPEG-TS does not carry here (write it to .mp4 or .flv)")
        }
    }

    /// The audio stream MPEG-TS carries: AAC in ADTS, or Opus as stream_type 0x06 with its registration and DVB
    /// extension descriptor (`OpusAudioDescriptor`, as the SRT outputs write it; a channel layout the descriptor cannot
    /// say is refused by name).
    package static func audioStream(_ audio: AudioConfiguration, output: String) throws -> TSMuxer.Stream {
        switch audio.bitstream {
        case .aac:
            return .audio(.aac)
        case let .opus(header):
            do {
                return .audio(.opus(try OpusAudioDescriptor(idHeader: header)))
            } catch {
                throw OutputError.unsupported(
                    output: output, reason: "the audio is Opus with \(header.channelCount) channels in mapping family \(header.channelMappingFamily), which MPEG-TS cannot describe (write it to .mp4 or .flv)")
            }
        }
    }

    package func open() throws {
        try file.append { try muxer.writeTables(into: &$0) }
    }

    package func write(_ packet: MediaPacket) throws {
        let pts = TSSink.ticks(packet.pts), dts = TSSink.ticks(packet.dts)
        let unit: TSMuxer.AccessUnit
        switch packet.kind {
        case .video:
            guard var conversion else { return }
            if let changed = packet.videoConfiguration { try conversion.update(to: changed.bitstream) }
            annexB.removeAll(keepingCapacity: true)
            let isKeyframe = try packet.data.withUnsafeBytes { try conversion.convert($0, into: &annexB) }
            self.conversion = conversion
            unit = TSMuxer.AccessUnit(pid: TSMuxer.defaultVideoPID, pts: pts, dts: dts == pts ? nil : dts,
                                      isKeyframe: isKeyframe || packet.isKeyframe, payload: annexB)
        case .audio:
            if let changed = packet.audioConfiguration {
                // One program: a change of codec (or of Opus's layout) is not written into it.
                guard try TSSink.audioStream(changed, output: name).codec == audioCodec else {
                    throw OutputError.unsupported(output: name, reason: "the audio changed to \(changed.codecName) mid-stream, which this MPEG-TS file's program does not hold")
                }
                audioSpecificConfig = changed.audioSpecificConfig
            }
            unit = TSMuxer.AccessUnit(pid: TSMuxer.defaultAudioPID, pts: pts, isKeyframe: true, payload: packet.data,
                                      audioSpecificConfig: audioSpecificConfig)
        }
        try file.append { try muxer.write(unit, into: &$0) }
    }

    package func finish() throws { try file.close() }
    package func abandon() { file.discard() }

    /// Microseconds of the job's timeline on the 90 kHz clock, rounded to nearest, from `startTicks`.
    package static func ticks(_ microseconds: Int64) -> Int64 {
        microseconds.rescaledSaturating(from: 1_000_000, to: 90_000).addingSaturating(startTicks)
    }
}
