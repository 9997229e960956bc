import CFFmpeg
import MediaJob

/// Owns one `SwrContext`: converts decoded samples to the encoder's rate, channel layout (5.1 → stereo is
/// a downmix with libswresample's default matrix) and planar float. A change in the decoded format
/// mid-stream gets a new resampler.
final class AudioResampler {
    private var context: OpaquePointer?
    private let inputFormat: Int32
    private let inputRate: Int32
    private var inputLayout = AVChannelLayout()
    private var outputLayout = AVChannelLayout()
    let outputFormat: AVSampleFormat
    let outputRate: Int32

    /// A resampler from `frame`'s format to `layout` / `format` / `rate`.
    init(from frame: UnsafePointer<AVFrame>, to layout: AVChannelLayout, format: AVSampleFormat, rate: Int32) throws(FFmpegError) {
        inputFormat = frame.pointee.format
        inputRate = frame.pointee.sample_rate
        outputFormat = format
        outputRate = rate
        try check(AudioResampler.layout(of: frame, into: &inputLayout), "av_channel_layout_copy")
        var target = layout
        try check(av_channel_layout_copy(&outputLayout, &target), "av_channel_layout_copy")
        try check(swr_alloc_set_opts2(&context, &outputLayout, format, rate, &inputLayout,
                                      AVSampleFormat(rawValue: inputFormat), inputRate, 0, nil), "swr_alloc_set_opts2")
        try check(swr_init(context), "swr_init")
    }

    deinit {
        swr_free(&context)
        av_channel_layout_uninit(&inputLayout)
        av_channel_layout_uninit(&outputLayout)
    }

    /// The frame's channel layout; a decoder that only knows the channel count gets that count's default layout.
    private static func layout(of frame: UnsafePointer<AVFrame>, into layout: inout AVChannelLayout) -> Int32 {
        var source = frame.pointee.ch_layout
        if source.order == AV_CHANNEL_ORDER_UNSPEC {
            av_channel_layout_default(&layout, source.nb_channels)
            return 0
        }
        return av_channel_layout_copy(&layout, &source)
    }

    /// True when `frame` has the format this resampler was made for.
    func accepts(_ frame: UnsafePointer<AVFrame>) -> Bool {
        guard frame.pointee.format == inputFormat, frame.pointee.sample_rate == inputRate else { return false }
        var layout = AVChannelLayout()
        defer { av_channel_layout_uninit(&layout) }
        guard AudioResampler.layout(of: frame, into: &layout) >= 0 else { return false }
        return av_channel_layout_compare(&layout, &inputLayout) == 0
    }

    /// Converts `frame` (`nil`: drain what the resampler holds back) into `buffer`, which grows as needed.
    /// - Returns: how many samples per channel `buffer` now holds.
    func convert(_ frame: UnsafePointer<AVFrame>?, into buffer: RawFrame) throws(FFmpegError) -> Int {
        let inputCount = frame.map { Int32($0.pointee.nb_samples) } ?? 0
        let capacity = try check(swr_get_out_samples(context, inputCount), "swr_get_out_samples")
        guard capacity > 0 else { return 0 }
        try reserve(buffer, samples: capacity)
        let output = UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>(buffer.pointer.pointee.extended_data)
        let input: UnsafeMutablePointer<UnsafePointer<UInt8>?>? = frame.flatMap { $0.pointee.extended_data.map { UnsafeMutablePointer(OpaquePointer($0)) } }
        let converted = try check(swr_convert(context, output, capacity, input, inputCount), "swr_convert")
        return Int(converted)
    }

    /// Makes `buffer` an output-format frame with room for `samples` samples per channel.
    private func reserve(_ buffer: RawFrame, samples: Int32) throws(FFmpegError) {
        let frame = buffer.pointer
        if buffer.hasData && frame.pointee.nb_samples >= samples { return }
        av_frame_unref(frame)
        frame.pointee.format = outputFormat.rawValue
        frame.pointee.sample_rate = outputRate
        frame.pointee.nb_samples = samples
        try check(av_channel_layout_copy(&frame.pointee.ch_layout, &outputLayout), "av_channel_layout_copy")
        try check(av_frame_get_buffer(frame, 0), "av_frame_get_buffer")
    }
}
