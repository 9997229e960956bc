import CFFmpeg
import MediaJob

/// Owns one `SwsContext`: converts decoded pictures to the encoder's size and pixel format. A change in
/// the input's size or format mid-stream gets a new context (`sws_getCachedContext`).
final class PictureScaler {
    private var context: OpaquePointer?
    let target: PictureSize
    let format: AVPixelFormat

    /// Bicubic, as ffmpeg's scale filter uses by default.
    static let flags = Int32(SWS_BICUBIC)

    init(target: PictureSize, format: AVPixelFormat) {
        self.target = target
        self.format = format
    }

    deinit { sws_freeContext(context) }

    /// True when `frame` already has the target size and format, so it can go to the encoder as it is.
    func passesThrough(_ frame: UnsafePointer<AVFrame>) -> Bool {
        Int(frame.pointee.width) == target.width && Int(frame.pointee.height) == target.height
            && frame.pointee.format == format.rawValue
    }

    /// Converts `source` into `destination`, whose buffers are (re)used once no encoder holds them.
    func scale(_ source: UnsafePointer<AVFrame>, into destination: RawFrame) throws(FFmpegError) {
        let sourceFormat = AVPixelFormat(rawValue: source.pointee.format)
        context = sws_getCachedContext(context, source.pointee.width, source.pointee.height, sourceFormat,
                                       Int32(target.width), Int32(target.height), format, PictureScaler.flags, nil, nil, nil)
        guard let context else { throw FFmpegError(function: "sws_getCachedContext", code: sluice_averror(EINVAL)) }
        let frame = destination.pointer
        if destination.hasData {
            // The encoder may still hold the previous picture: copy-on-write instead of overwriting it.
            try check(av_frame_make_writable(frame), "av_frame_make_writable")
        } else {
            frame.pointee.width = Int32(target.width)
            frame.pointee.height = Int32(target.height)
            frame.pointee.format = format.rawValue
            try check(av_frame_get_buffer(frame, 0), "av_frame_get_buffer")
        }
        try check(sws_scale_frame(context, frame, source), "sws_scale_frame")
        try check(av_frame_copy_props(frame, source), "av_frame_copy_props")
    }
}
