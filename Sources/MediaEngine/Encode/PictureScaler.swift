import CFFmpeg
import MediaJob

/// Converts decoded pictures to the encoder's size and pixel format with libswscale. It keeps one `SwsContext` per
/// source geometry it has seen (at most `maximumContexts`): a ladder rung scales from a larger rung's picture when
/// that one was scaled from the same frame, else from the decoded picture (`ScaleCascade`), and a context made anew
/// for every such change would cost more than the scale.
final class PictureScaler {
    private struct Source: Equatable {
        let width: Int32
        let height: Int32
        let format: Int32
    }

    private var contexts: [(source: Source, context: OpaquePointer)] = []
    let target: PictureSize
    let format: AVPixelFormat

    /// Bicubic, as ffmpeg's scale filter uses by default.
    static let flags = Int32(SWS_BICUBIC)
    /// The decoded picture, one or two larger rungs, and a size change mid-stream.
    static let maximumContexts = 4

    init(target: PictureSize, format: AVPixelFormat) {
        self.target = target
        self.format = format
    }

    deinit { for entry in contexts { sws_freeContext(entry.context) } }

    /// True when `frame` already has the target size and format, so it can go to the encoder as it is.
    func passesThrough(_ frame: UnsafePointer<AVFrame>) -> Bool {
        Int(frame.pointee.width) == target.width && Int(frame.pointee.height) == target.height
            && frame.pointee.format == format.rawValue
    }

    /// Converts `source` into `destination`, whose buffers are (re)used once no encoder holds them. The picture's
    /// properties (timestamps, colour, side data) are those of `properties`, the decoded frame `source` came from.
    func scale(_ source: UnsafePointer<AVFrame>, into destination: RawFrame, properties: UnsafePointer<AVFrame>) throws(FFmpegError) {
        let context = try context(for: source)
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
        try check(av_frame_copy_props(frame, properties), "av_frame_copy_props")
    }

    private func context(for picture: UnsafePointer<AVFrame>) throws(FFmpegError) -> OpaquePointer {
        let source = Source(width: picture.pointee.width, height: picture.pointee.height, format: picture.pointee.format)
        if let index = contexts.firstIndex(where: { $0.source == source }) {
            let found = contexts[index].context
            if index != 0 { contexts.insert(contexts.remove(at: index), at: 0) }
            return found
        }
        guard let made = sws_getCachedContext(nil, source.width, source.height, AVPixelFormat(rawValue: source.format),
                                        Int32(target.width), Int32(target.height), format, PictureScaler.flags, nil, nil, nil) else {
            throw FFmpegError(function: "sws_getCachedContext", code: sluice_averror(EINVAL))
        }
        contexts.insert((source, made), at: 0)
        if contexts.count > PictureScaler.maximumContexts, let oldest = contexts.popLast() { sws_freeContext(oldest.context) }
        return made
    }
}
