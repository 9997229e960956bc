import CFFmpeg
import MediaFormats
import MediaJob
import MediaSinks

/// One video rendition of encode mode: constant frame rate (drop/duplicate by output timestamp) → libswscale →
/// H.264 encoder → AVCC `MediaPacket`s with an avcC configuration. Fed decoded pictures by `VideoTranscoder`,
/// which decodes once for every chain.
final class VideoEncodeChain {
    /// The rendition its packets belong to (`RenditionPlan.video`).
    let rendition: Int
    let selection: EncoderSelection
    /// What the outputs are opened with: avcC from the encoder's extradata, or (when it made none) an empty
    /// Annex B configuration that the first packet's avcC, built from the first IDR, replaces.
    let configuration: VideoConfiguration

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
    /// Keyframes at the input's keyframes (`VideoEncodeSettings.keyframesFollowInput`).
    private let followsInputKeyframes: Bool
    /// The input's keyframe whose picture was dropped by the rate conversion: the next encoded picture is one instead.
    private var keyframeDue = false
    private static let microseconds = AVRational(num: 1, den: 1_000_000)
    /// The pictures this chain's ladder scaled from each frame (nil: a chain alone) and this chain's place in it.
    private var cascade: ScaleCascade?
    private var cascadeIndex = 0
    /// How many decoded frames this chain has taken, and the number of the held one (`ScaleCascade`'s frame).
    private var framesTaken = 0
    private var heldFrame = 0

    /// Opens the encoder `settings` ask for, at the target size and rate.
    init(rendition: Int, stream: StreamInfo, settings: VideoEncodeSettings) throws(EncodeError) {
        self.rendition = rendition
        followsInputKeyframes = settings.keyframesFollowInput
        if (stream.width <= 0 || stream.height <= 0) && (settings.width == nil || settings.height == nil) {
            throw .unsupportedSetting("the input does not say its picture size: set video.width and video.height")
        }
        let size = PictureSize.target(input: PictureSize(width: stream.width, height: stream.height), width: settings.width, height: settings.height)
        let rate = Self.outputRate(requested: settings.fps, input: stream.averageFrameRate)
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

    /// How far the encoder's first DTS precedes its first PTS, in microseconds.
    var encoderDelay: Int64 {
        av_rescale_q(Int64(encoder.reorderDelay), encoder.timeBase, VideoEncodeChain.microseconds)
    }

    /// A decoded picture at `time` (microseconds on the job's timeline; nil: none known) lasting `duration` (nil:
    /// unknown): the held one gets its slots, then this one is held.
    func take(_ frame: UnsafeMutablePointer<AVFrame>, time decoded: Int64?, duration given: Int64?, into output: inout [MediaPacket]) throws {
        let duration = given ?? rateConverter.time(ofSlot: 1)
        // No timestamp at all: one frame after the previous picture.
        let time = decoded ?? (lastTime ?? 0) + duration
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
        framesTaken += 1
        heldFrame = framesTaken
        heldEnd = time + duration
    }

    /// End of input: shows the last picture for its duration and drains the encoder.
    func finish(into output: inout [MediaPacket]) throws {
        if held.hasData {
            try encodeHeld(slots: rateConverter.finish(endTime: heldEnd - (slotOrigin ?? 0)), into: &output)
            av_frame_unref(held.pointer)
        }
        try encoder.encode(nil) { packet in try emit(packet, into: &output) }
    }

    /// Encodes the held picture once per slot (none: it is dropped).
    private func encodeHeld(slots: Range<Int64>, into output: inout [MediaPacket]) throws {
        if followsInputKeyframes, held.pointer.pointee.key_frame != 0 { keyframeDue = true }
        guard !slots.isEmpty else { return }
        let picture: UnsafeMutablePointer<AVFrame>
        if scaler.passesThrough(held.pointer) {
            picture = held.pointer
        } else {
            let source = cascade?.source(frame: heldFrame, target: scaler.target, decoded: held.pointer) ?? held.pointer
            try scaler.scale(source, into: scaled, properties: held.pointer)
            cascade?.record(index: cascadeIndex, frame: heldFrame, picture: scaled.pointer)
            picture = scaled.pointer
        }
        // The encoder decides frame types itself (GOP, B-frames); the decoder's must not leak through, unless the
        // rung follows the input's keyframes: then the input's keyframe is marked I (an IDR, `forced-idr`) in its
        // first slot. The held picture is this chain's own reference, so setting its fields leaves other chains' alone.
        for slot in slots {
            picture.pointee.pict_type = keyframeDue ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
            keyframeDue = false
            picture.pointee.pts = slot
            try encoder.encode(picture) { packet in try emit(packet, into: &output) }
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
        let pts = packet.pointee.pts == nopts ? (lastDTS ?? 0) : origin + av_rescale_q(packet.pointee.pts, encoder.timeBase, VideoEncodeChain.microseconds)
        var dts = packet.pointee.dts == nopts ? pts : origin + av_rescale_q(packet.pointee.dts, encoder.timeBase, VideoEncodeChain.microseconds)
        // The timeline was shifted by the encoder's reorder delay; this keeps DTS ≥ 0 and increasing regardless.
        dts = max(dts, 0)
        if let last = lastDTS, dts <= last { dts = last + 1 }
        lastDTS = dts
        let isKeyframe = packet.pointee.flags & AV_PKT_FLAG_KEY != 0 || conversion.isKeyframe
        var media = MediaPacket(kind: .video, data: sample, pts: max(pts, dts), dts: dts, isKeyframe: isKeyframe, videoConfiguration: changed)
        media.rendition = rendition
        output.append(media)
    }
}

extension VideoEncodeChain: EncodeChain {
    static var kind: String { "video" }

    /// The rungs of one decoder share a `ScaleCascade` and take each frame largest first.
    static func arrange(_ chains: [VideoEncodeChain]) -> [Int] {
        guard chains.count > 1 else { return Array(chains.indices) }
        let cascade = ScaleCascade(chains: chains.count)
        for (index, chain) in chains.enumerated() {
            chain.cascade = cascade
            chain.cascadeIndex = index
        }
        return ScaleCascade.order(sizes: chains.map(\.scaler.target))
    }
}

extension VideoEncodeChain {
    /// The output rate: the job's `fps`, else the input's average rate when it is plausible, else 25; as a
    /// fraction (29.97 = 30000/1001).
    static func outputRate(requested: Double?, input: Double?) -> AVRational {
        // Containers with millisecond time bases sometimes report 1000 fps; that is no rate to encode at.
        let plausible = input.flatMap { plausibleRates.contains($0) ? $0 : nil }
        return av_d2q(requested ?? plausible ?? defaultRate, 1_001_000)
    }

    static let plausibleRates = 1.0...120.0
    static let defaultRate = 25.0
}
