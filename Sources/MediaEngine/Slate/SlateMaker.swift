import CFFmpeg
import MediaFormats
import MediaJob

/// Makes slate loops with libx264 and FFmpeg's AAC encoder (docs/ARCHITECTURE.md §4): a picture (the job's slate
/// file, or colour bars) encoded at the stream's size, profile, level and frame rate, and AAC silence at its rate and
/// channels. A still picture loops every 2 s, a video slate over its first 10 s; either starts on a keyframe and has
/// one every 2 s, so a destination that joins during the slate starts at once.
public struct SlateMaker: SlateMaking {
    /// The slate file (already resolved under the input root), nil for colour bars.
    let pictures: SlatePictures?

    /// A still slate loops over this many seconds; also the keyframe interval of every slate.
    static let loopSeconds = 2.0
    /// AAC silence needs few bits.
    static let audioBitrateKbps = 64

    /// - Parameters:
    ///   - slate: the slate file's path (nil: colour bars).
    ///   - root: the input root the path must stay under (nil: the path as given, for `sluice run`).
    /// - Throws: when the slate does not open or decode, naming it, so the job fails before it starts.
    public init(slate: String?, root: String?) throws(SlateError) {
        if let reason = CodecLibraries.load() { throw SlateError(MediaJobError.codecLibraries(reason: reason).description) }
        if let slate {
            let pictures = SlatePictures(path: slate, root: root)
            try pictures.validate()
            self.pictures = pictures
        } else {
            pictures = nil
        }
    }

    public func makeSlate(for target: SlateTarget) throws(SlateError) -> SlateLoop {
        let format = try SlateFormat(target)
        // libx264 and the AAC encoder print their statistics at info level when they close.
        LibraryLog.limitToErrors()
        var loop = SlateLoop(videoHeader: nil, audioHeader: nil, videoFrames: [], rateNumerator: 30, rateDenominator: 1,
                             audioFrames: [], sampleRate: 48000, samplesPerFrame: 1024)
        do {
            if let video = format.video { try encodeVideo(video, into: &loop) }
            if let audio = format.audio { try encodeSilence(audio, into: &loop) }
        } catch let error as SlateError {
            throw error
        } catch {
            throw SlateError("encoding the slate failed: \(error)")
        }
        return loop
    }

    private func encodeVideo(_ video: SlateFormat.Video, into loop: inout SlateLoop) throws {
        var settings = VideoEncodeSettings()
        settings.encoder = .software
        settings.live = true
        settings.profile = video.profile
        settings.level = video.level
        settings.gopSeconds = SlateMaker.loopSeconds
        let size = PictureSize(width: video.width, height: video.height)
        let rate = AVRational(num: video.rateNumerator, den: video.rateDenominator)
        let encoder = try H264Encoder(software: settings, size: size, rate: rate)
        var converter = try AnnexBToAVCCConverter(extradata: encoder.extradata)
        var frames: [[UInt8]] = []
        var sample: [UInt8] = []
        let collect: (UnsafeMutablePointer<AVPacket>) throws -> Void = { packet in
            guard let data = packet.pointee.data else { return }
            sample.removeAll(keepingCapacity: true)
            let result = try converter.convert(UnsafeRawBufferPointer(start: data, count: Int(packet.pointee.size)), into: &sample)
            guard !sample.isEmpty else { return }
            var body: [UInt8] = []
            FLVVideoTagHeader(frameType: result.isKeyframe ? .keyFrame : .interFrame, avcPacketType: .nalu, compositionTime: 0).write(into: &body)
            // Parameter sets in band before each IDR as well: a player's parser that missed the new sequence header (FFmpeg's
            // h264 parser keeps the first one it saw) still reads the slate's slices.
            if result.isKeyframe, let record = converter.record {
                try AVCC.write(nalUnits: record.sequenceParameterSets + record.pictureParameterSets, lengthSize: record.nalUnitLengthSize, into: &body)
            }
            body += sample
            frames.append(body)
        }
        let scaled = try RawFrame()
        let scaler = PictureScaler(target: size, format: encoder.pictureFormat)
        let frameSeconds = Double(video.rateDenominator) / Double(video.rateNumerator)
        var slot: Int64 = 0
        func encode(_ picture: UnsafeMutablePointer<AVFrame>, until seconds: Double) throws {
            // The picture fills every output slot up to `seconds` (a still: the whole loop), scaled once for all of them.
            guard Double(slot) * frameSeconds < seconds else { return }
            try scaler.scale(picture, into: scaled, properties: picture)
            scaled.pointer.pointee.pict_type = AV_PICTURE_TYPE_NONE
            while Double(slot) * frameSeconds < seconds {
                scaled.pointer.pointee.pts = slot
                try encoder.encode(scaled.pointer, collect)
                slot += 1
            }
        }
        if let pictures {
            let held = try RawFrame()
            var heldSince: Double?
            try pictures.decode { frame, seconds in
                if held.hasData {
                    try encode(held.pointer, until: seconds)
                    av_frame_unref(held.pointer)
                }
                try check(av_frame_ref(held.pointer, frame), "av_frame_ref")
                heldSince = seconds
                return true
            }
            if held.hasData {
                // The last picture (a still's only one) lasts to the end of the loop, at least one frame.
                let end = max((heldSince ?? 0) + frameSeconds, slot == 0 ? SlateMaker.loopSeconds : 0)
                try encode(held.pointer, until: end)
            }
        } else {
            let card = try SlateMaker.colourBars(size)
            try encode(card.pointer, until: SlateMaker.loopSeconds)
        }
        try encoder.encode(nil, collect)
        guard let record = converter.record, !frames.isEmpty else { throw SlateError("libx264 made no slate picture") }
        var header: [UInt8] = []
        FLVVideoTagHeader(frameType: .keyFrame, avcPacketType: .sequenceHeader, compositionTime: 0).write(into: &header)
        try record.write(into: &header)
        loop.videoHeader = header
        loop.videoFrames = frames
        loop.rateNumerator = Int64(video.rateNumerator)
        loop.rateDenominator = Int64(video.rateDenominator)
    }

    private func encodeSilence(_ audio: SlateFormat.Audio, into loop: inout SlateLoop) throws {
        var settings = AudioEncodeSettings()
        settings.bitrateKbps = SlateMaker.audioBitrateKbps
        settings.sampleRate = audio.sampleRate
        settings.channels = audio.channels
        let encoder = try AACEncoder(settings: settings, inputSampleRate: audio.sampleRate, inputChannels: audio.channels)
        let fifo = try AudioSampleFIFO(format: AV_SAMPLE_FMT_FLTP, channels: encoder.channels)
        let silence = try RawFrame()
        let frame = silence.pointer
        frame.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        frame.pointee.sample_rate = encoder.sampleRate
        frame.pointee.nb_samples = Int32(encoder.frameSize)
        var layout = encoder.channelLayout
        try check(av_channel_layout_copy(&frame.pointee.ch_layout, &layout), "av_channel_layout_copy")
        try check(av_frame_get_buffer(frame, 0), "av_frame_get_buffer")
        try check(av_samples_set_silence(frame.pointee.extended_data, 0, frame.pointee.nb_samples, encoder.channels, AV_SAMPLE_FMT_FLTP),
                  "av_samples_set_silence")
        // The loop covers the video loop; one extra block lets the encoder's priming frame be left out.
        let blocks = Int((SlateMaker.loopSeconds * Double(encoder.sampleRate) / Double(encoder.frameSize)).rounded(.up))
        var packets: [[UInt8]] = []
        let collect: (UnsafeMutablePointer<AVPacket>) throws -> Void = { packet in
            guard let data = packet.pointee.data, packet.pointee.size > 0 else { return }
            var body: [UInt8] = []
            FLVAudioTagHeader(aacPacketType: .raw).write(into: &body)
            body += UnsafeBufferPointer(start: data, count: Int(packet.pointee.size))
            packets.append(body)
        }
        for block in 0...blocks {
            try fifo.write(silence, samples: encoder.frameSize)
            try encoder.encode(from: fifo, samples: encoder.frameSize, pts: Int64(block * encoder.frameSize), collect)
        }
        try encoder.drain(collect)
        guard packets.count > blocks else { throw SlateError("the AAC encoder made \(packets.count) frames of silence, not \(blocks + 1)") }
        var header: [UInt8] = []
        FLVAudioTagHeader(aacPacketType: .sequenceHeader).write(into: &header)
        header += encoder.extradata
        loop.audioHeader = header
        loop.audioFrames = Array(packets.dropFirst().prefix(blocks))
        loop.sampleRate = Int64(encoder.sampleRate)
        loop.samplesPerFrame = Int64(encoder.frameSize)
    }

    /// 75 % colour bars (white, yellow, cyan, green, magenta, red, blue) in BT.601 YUV 4:2:0, the card a slate without
    /// a file shows.
    static func colourBars(_ size: PictureSize) throws -> RawFrame {
        let bars: [(UInt8, UInt8, UInt8)] = [(180, 128, 128), (162, 44, 142), (131, 156, 44), (112, 72, 58), (84, 184, 198), (65, 100, 212), (35, 212, 114)]
        let card = try RawFrame()
        let frame = card.pointer
        frame.pointee.width = Int32(size.width)
        frame.pointee.height = Int32(size.height)
        frame.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        try check(av_frame_get_buffer(frame, 0), "av_frame_get_buffer")
        let planes = [frame.pointee.data.0, frame.pointee.data.1, frame.pointee.data.2]
        let strides = [Int(frame.pointee.linesize.0), Int(frame.pointee.linesize.1), Int(frame.pointee.linesize.2)]
        for plane in 0..<3 {
            guard let base = planes[plane] else { continue }
            let width = plane == 0 ? size.width : size.width / 2
            let height = plane == 0 ? size.height : size.height / 2
            for y in 0..<height {
                let row = base + y * strides[plane]
                for x in 0..<width {
                    let bar = bars[min(x * bars.count / max(width, 1), bars.count - 1)]
                    row[x] = plane == 0 ? bar.0 : plane == 1 ? bar.1 : bar.2
                }
            }
        }
        return card
    }
}
