import CFFmpeg
import MediaJob

/// Owns an H.264 encoder: `h264_vaapi` on a VAAPI device, or libx264. Both are configured the same way
/// (size, frame rate, GOP, rate control, profile) and write their SPS/PPS as Annex B extradata
/// (`AV_CODEC_FLAG_GLOBAL_HEADER`).
final class H264Encoder {
    /// FFmpeg's name for the encoder: `h264_vaapi` or `libx264`.
    let name: String
    private let context: CodecContext
    private let packet: CodedPacket
    /// VAAPI only: the surface pool pictures are uploaded to, and the surface in flight.
    private let frames: VAAPIFrames?
    private let surface: RawFrame?
    /// The software format pictures must be in when they reach `encode`.
    let pictureFormat: AVPixelFormat
    let size: PictureSize
    /// Frames per second; the encoder's time base is its inverse, so a picture's PTS is its slot number.
    let rate: AVRational
    var timeBase: AVRational { AVRational(num: rate.den, den: rate.num) }

    static let vaapiName = "h264_vaapi"
    static let softwareName = "libx264"

    /// Opens the encoder `settings.encoder` asks for. `auto` tries VAAPI for real (device, frames context,
    /// opening `h264_vaapi`) and falls back to libx264, saying why.
    static func open(settings: VideoEncodeSettings, size: PictureSize, rate: AVRational) throws(EncodeError) -> (H264Encoder, EncoderSelection) {
        switch settings.encoder {
        case .software:
            return (try H264Encoder(software: settings, size: size, rate: rate), EncoderSelection(encoder: softwareName))
        case .vaapi:
            return (try H264Encoder(vaapi: settings, size: size, rate: rate), EncoderSelection(encoder: vaapiName))
        case .auto:
            do {
                return (try H264Encoder(vaapi: settings, size: size, rate: rate), EncoderSelection(encoder: vaapiName))
            } catch {
                let encoder = try H264Encoder(software: settings, size: size, rate: rate)
                return (encoder, EncoderSelection(encoder: softwareName, fallbackReason: error.description))
            }
        }
    }

    /// libx264, preset `veryfast` (`tune zerolatency` for live input), GOP exact (`sc_threshold 0`).
    init(software settings: VideoEncodeSettings, size: PictureSize, rate: AVRational) throws(EncodeError) {
        guard let codec = avcodec_find_encoder_by_name(H264Encoder.softwareName) else { throw .noEncoder(name: H264Encoder.softwareName) }
        name = H264Encoder.softwareName
        pictureFormat = AV_PIX_FMT_YUV420P
        self.size = size
        self.rate = rate
        frames = nil
        surface = nil
        var options = ["preset": "veryfast", "sc_threshold": "0"]
        if settings.live { options["tune"] = "zerolatency" }
        // A picture marked I (the input's keyframe) becomes an IDR, so every rung's segment starts decodable.
        if settings.keyframesFollowInput { options["forced-idr"] = "1" }
        if let level = settings.level { options["level"] = level }
        if let profile = settings.profile {
            // x264's baseline is already constrained baseline (no FMO/ASO); it has no separate name for it.
            options["profile"] = profile == "constrained_baseline" ? "baseline" : profile
        }
        do {
            context = try CodecContext(codec: codec)
            packet = try CodedPacket()
        } catch {
            throw .ffmpeg(stage: "allocating libx264", error)
        }
        H264Encoder.configure(context.pointer, settings: settings, size: size, rate: rate)
        context.pointer.pointee.pix_fmt = pictureFormat
        // One thread per core plus x264's own lookahead threads, as ffmpeg's `-threads auto`.
        context.pointer.pointee.thread_count = 0
        let unused: [String]
        do { unused = try context.open(options: options) } catch { throw .ffmpeg(stage: "opening libx264", error) }
        if !unused.isEmpty { throw .unsupportedSetting("libx264 does not take \(unused.sorted().joined(separator: ", "))") }
    }

    /// `h264_vaapi` on the render node `settings.device`: device, NV12 surface pool, then the encoder.
    init(vaapi settings: VideoEncodeSettings, size: PictureSize, rate: AVRational) throws(EncodeError) {
        let device = try VAAPIDevice(path: settings.device)
        let frames = try VAAPIFrames(device: device, size: size)
        guard let codec = avcodec_find_encoder_by_name(H264Encoder.vaapiName) else { throw .noEncoder(name: H264Encoder.vaapiName) }
        name = H264Encoder.vaapiName
        pictureFormat = AV_PIX_FMT_NV12
        self.size = size
        self.rate = rate
        self.frames = frames
        do {
            context = try CodecContext(codec: codec)
            packet = try CodedPacket()
            surface = try RawFrame()
        } catch {
            throw .ffmpeg(stage: "allocating h264_vaapi", error)
        }
        H264Encoder.configure(context.pointer, settings: settings, size: size, rate: rate)
        context.pointer.pointee.pix_fmt = AV_PIX_FMT_VAAPI
        guard let reference = av_buffer_ref(frames.reference) else {
            throw .ffmpeg(stage: "referencing the VAAPI frames context", FFmpegError(function: "av_buffer_ref", code: sluice_averror(ENOMEM)))
        }
        // The codec context frees this reference with itself.
        context.pointer.pointee.hw_frames_ctx = reference
        var options: [String: String] = [:]
        if let profile = settings.profile {
            // VAAPI drivers offer constrained baseline only.
            options["profile"] = profile == "baseline" ? "constrained_baseline" : profile
        }
        do {
            try context.open(options: options)
        } catch {
            throw .vaapiUnavailable(device: settings.device, step: "open \(H264Encoder.vaapiName)", error)
        }
    }

    /// What both encoders share: size, timing, GOP, rate control and, live, no B-frames.
    private static func configure(_ context: UnsafeMutablePointer<AVCodecContext>, settings: VideoEncodeSettings, size: PictureSize, rate: AVRational) {
        context.pointee.width = Int32(size.width)
        context.pointee.height = Int32(size.height)
        context.pointee.time_base = AVRational(num: rate.den, den: rate.num)
        context.pointee.framerate = rate
        context.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        // Following the input, the encoder places no keyframe of its own: only the pictures marked I are.
        let gop = settings.keyframesFollowInput ? H264Encoder.unboundedGOP : H264Encoder.gopFrames(seconds: settings.gopSeconds, rate: rate)
        context.pointee.gop_size = gop
        context.pointee.keyint_min = gop
        if let kbps = settings.bitrateKbps {
            let bitsPerSecond = Int64(kbps) * 1000
            context.pointee.bit_rate = bitsPerSecond
            context.pointee.rc_max_rate = bitsPerSecond
            // Two seconds of VBV buffer: steady enough for RTMP, loose enough to keep quality.
            context.pointee.rc_buffer_size = Int32(clamping: bitsPerSecond * 2)
        }
        if settings.globalHeader { context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        // A live encode has no B-frames, on either encoder (x264's zerolatency already has none; h264_vaapi's default
        // is 2): WebRTC viewers assume none, and each one delays every picture by a frame.
        if settings.live { context.pointee.max_b_frames = 0 }
    }

    /// x264's X264_KEYINT_MAX_INFINITE: no keyframe but those asked for (and the first).
    static let unboundedGOP: Int32 = 1 << 30

    /// Frames between keyframes: `gop_s` at the output rate, at least one.
    static func gopFrames(seconds: Double, rate: AVRational) -> Int32 {
        max(1, ClockConversion.clamped((seconds * Double(rate.num) / Double(max(rate.den, 1))).rounded(), as: Int32.self))
    }

    /// The SPS/PPS as Annex B, empty if the encoder made none (then they arrive with the first IDR).
    var extradata: [UInt8] { context.extradata }

    /// Pictures the encoder holds back before its first packet's DTS reaches its PTS (B-frame reordering).
    var reorderDelay: Int { Int(context.pointer.pointee.has_b_frames) }

    /// Encodes one picture (`nil`: end of stream, drain) and hands each packet to `body`.
    /// `picture` is in `pictureFormat` at `size`, its `pts` the output slot.
    func encode(_ picture: UnsafeMutablePointer<AVFrame>?, _ body: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        var input = picture
        if let picture, let frames, let surface {
            try frames.upload(picture, into: surface)
            input = surface.pointer
        }
        let status = avcodec_send_frame(context.pointer, input)
        if picture == nil && status == sluice_averror_eof() { return }
        try check(status, "avcodec_send_frame")
        while true {
            let status = avcodec_receive_packet(context.pointer, packet.pointer)
            if status == sluice_averror_eagain() || status == sluice_averror_eof() { return }
            try check(status, "avcodec_receive_packet")
            defer { av_packet_unref(packet.pointer) }
            try body(packet.pointer)
        }
    }
}
