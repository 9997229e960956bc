import CFFmpeg
import MediaFormats

/// Encode mode for one video stream, run on the input thread: decoder → libswscale → constant frame rate
/// (drop/duplicate by output timestamp) → H.264 encoder → AVCC `MediaPacket`s with an avcC configuration.
final class VideoTranscoder {
    let selection: EncoderSelection
    /// What the outputs are opened with: avcC from the encoder's extradata, or (when it made none) an empty
    /// Annex B configuration that the first packet's avcC, built from the first IDR, replaces.
    let configuration: VideoConfiguration
    /// Subtracted from input timestamps (microseconds) to place frames on the job's timeline.
    var timelineOffset: Int64 = 0
    private(set) var encodedFrames = 0

    private let stream: StreamInfo
    private let decoder: StreamDecoder
    private let scaler: PictureScaler
    private let encoder: H264Encoder
    private var rateConverter: FrameRateConverter
    /// The decoded picture waiting for its slots (one behind), its scaled form, and its end time.
    private let held: RawFrame
    private let scaled: RawFrame
    private var heldEnd: Int64 = 0
    private var lastTime: Int64?
    /// The first picture's time on the job's timeline: slot 0.
    private var slotOrigin: Int64?
    private var avcc: AnnexBToAVCCConverter
    private var announced: AVCDecoderConfigurationRecord?
    private var sample: [UInt8] = []
    private var lastDTS: Int64?
    private static let microseconds = AVRational(num: 1, den: 1_000_000)

    /// Opens the decoder for `stream` and the encoder `settings` ask for, at the target size and rate.
    init(stream: StreamInfo, parameters: UnsafePointer<AVCodecParameters>, settings: VideoEncodeSettings) throws(EncodeError) {
        self.stream = stream
        let timeBase = AVRational(num: stream.timeBaseNumerator, den: stream.timeBaseDenominator)
        decoder = try StreamDecoder(parameters: parameters, timeBase: timeBase, kind: "video")
        if (stream.width <= 0 || stream.height <= 0) && (settings.width == nil || settings.height == nil) {
            throw .unsupportedSetting("the input does not say its picture size: set video.width and video.height")
        }
        let size = PictureSize.target(input: PictureSize(width: stream.width, height: stream.height), width: settings.width, height: settings.height)
        let rate = VideoTranscoder.outputRate(requested: settings.fps, input: stream.averageFrameRate)
        let (encoder, selection) = try H264Encoder.open(settings: settings, size: size, rate: rate)
        self.encoder = encoder
        self.selection = selection
        scaler = PictureScaler(target: size, format: encoder.pictureFormat)
        rateConverter = FrameRateConverter(rateNumerator: Int64(rate.num), rateDenominator: Int64(rate.den))
        do {
            held = try RawFrame()
            scaled = try RawFrame()
        } catch {
            throw .ffmpeg(stage: "allocating video frames", error)
        }
        let extradata = encoder.extradata
        do {
            avcc = extradata.isEmpty ? AnnexBToAVCCConverter() : try AnnexBToAVCCConverter(extradata: extradata)
        } catch {
            throw .unsupportedSetting("\(encoder.name) wrote extradata MediaFormats cannot read: \(error)")
        }
        announced = avcc.record
        let frameRate = Double(rate.num) / Double(rate.den)
        let bitstream: VideoBitstream = avcc.record.map { .avcc($0) } ?? .annexB(extradata: [])
        configuration = VideoConfiguration(bitstream: bitstream, width: size.width, height: size.height, frameRate: frameRate)
    }

    /// The output rate: the job's `fps`, else the input's average rate when it is plausible, else 25; as a
    /// fraction (29.97 = 30000/1001).
    static func outputRate(requested: Double?, input: Double?) -> AVRational {
        // Containers with millisecond time bases sometimes report 1000 fps; that is no rate to encode at.
        let plausible = input.flatMap { VideoTranscoder.plausibleRates.contains($0) ? $0 : nil }
        return av_d2q(requested ?? plausible ?? VideoTranscoder.defaultRate, 1_001_000)
    }

    static let plausibleRates = 1.0...120.0
    static let defaultRate = 25.0

    /// How far the encoder's first DTS precedes its first PTS, in microseconds: the job's timeline starts
    /// this much later so no timestamp is negative.
    var encoderDelay: Int64 {
        av_rescale_q(Int64(encoder.reorderDelay), encoder.timeBase, VideoTranscoder.microseconds)
    }

    /// Decodes one packet and encodes what it completes.
    func push(_ packet: DemuxedPacket) throws -> [MediaPacket] {
        var output: [MediaPacket] = []
        do {
            try decoder.decode(packet) { frame in try take(frame, into: &output) }
        } catch let error as FFmpegError {
            throw EncodeError.ffmpeg(stage: "video transcode (stream \(stream.index))", error)
        }
        return output
    }

    /// End of input: drains the decoder, shows the last picture for its duration and drains the encoder.
    func finish() throws -> [MediaPacket] {
        var output: [MediaPacket] = []
        do {
            try decoder.decode(nil) { frame in try take(frame, into: &output) }
            if held.hasData {
                try encodeHeld(slots: rateConverter.finish(endTime: heldEnd - (slotOrigin ?? 0)), into: &output)
                av_frame_unref(held.pointer)
            }
            try encoder.encode(nil) { packet in try emit(packet, into: &output) }
        } catch let error as FFmpegError {
            throw EncodeError.ffmpeg(stage: "video transcode (stream \(stream.index))", error)
        }
        return output
    }

    /// A decoded picture: the held one gets its slots, then this one is held.
    private func take(_ frame: UnsafeMutablePointer<AVFrame>, into output: inout [MediaPacket]) throws {
        let nopts = sluice_nopts_value()
        let timeBase = decoder.timeBase
        let duration = frame.pointee.pkt_duration > 0
            ? av_rescale_q(frame.pointee.pkt_duration, timeBase, VideoTranscoder.microseconds)
            : rateConverter.time(ofSlot: 1)
        var time: Int64
        if frame.pointee.best_effort_timestamp != nopts {
            time = av_rescale_q(frame.pointee.best_effort_timestamp, timeBase, VideoTranscoder.microseconds)
                .subtractingSaturating(timelineOffset)
        } else {
            // No timestamp at all: one frame after the previous picture.
            time = (lastTime ?? 0) + duration
        }
        lastTime = time
        // Slots count from the first picture, so it keeps its exact time and the others follow at the output rate.
        let origin = slotOrigin ?? time
        slotOrigin = origin
        let slots = rateConverter.push(presentationTime: time - origin)
        if held.hasData {
            try encodeHeld(slots: slots, into: &output)
            av_frame_unref(held.pointer)
        }
        try check(av_frame_ref(held.pointer, frame), "av_frame_ref")
        heldEnd = time + duration
    }

    /// Encodes the held picture once per slot (none: it is dropped).
    private func encodeHeld(slots: Range<Int64>, into output: inout [MediaPacket]) throws {
        guard !slots.isEmpty else { return }
        let picture: UnsafeMutablePointer<AVFrame>
        if scaler.passesThrough(held.pointer) {
            picture = held.pointer
        } else {
            try scaler.scale(held.pointer, into: scaled)
            picture = scaled.pointer
        }
        // The encoder decides frame types itself (GOP, B-frames); the decoder's must not leak through.
        picture.pointee.pict_type = AV_PICTURE_TYPE_NONE
        for slot in slots {
            picture.pointee.pts = slot
            try encoder.encode(picture) { packet in try emit(packet, into: &output) }
            encodedFrames += 1
        }
    }

    /// One encoded packet: Annex B → AVCC, with a new configuration when the parameter sets changed.
    private func emit(_ packet: UnsafeMutablePointer<AVPacket>, into output: inout [MediaPacket]) throws {
        guard let data = packet.pointee.data, packet.pointee.size > 0 else { return }
        sample.removeAll(keepingCapacity: true)
        let conversion = try avcc.convert(UnsafeRawBufferPointer(start: data, count: Int(packet.pointee.size)), into: &sample)
        var changed: VideoConfiguration?
        if conversion.parameterSetsChanged, let record = avcc.record, record != announced {
            announced = record
            var configuration = configuration
            configuration.bitstream = .avcc(record)
            changed = configuration
        }
        guard announced != nil, !sample.isEmpty else { return }
        let nopts = sluice_nopts_value()
        let origin = slotOrigin ?? 0
        let pts = packet.pointee.pts == nopts ? (lastDTS ?? 0) : origin + av_rescale_q(packet.pointee.pts, encoder.timeBase, VideoTranscoder.microseconds)
        var dts = packet.pointee.dts == nopts ? pts : origin + av_rescale_q(packet.pointee.dts, encoder.timeBase, VideoTranscoder.microseconds)
        // The timeline was shifted by the encoder's reorder delay; this keeps DTS ≥ 0 and increasing regardless.
        dts = max(dts, 0)
        if let last = lastDTS, dts <= last { dts = last + 1 }
        lastDTS = dts
        let isKeyframe = packet.pointee.flags & AV_PKT_FLAG_KEY != 0 || conversion.isKeyframe
        output.append(MediaPacket(kind: .video, data: sample, pts: max(pts, dts), dts: dts, isKeyframe: isKeyframe, videoConfiguration: changed))
    }
}
