import CFFmpeg
import MediaJob

/// Owns one `AVAudioFifo`: resampled audio waits here until a whole encoder frame (1024 samples) is there.
final class AudioSampleFIFO {
    private let fifo: OpaquePointer

    init(format: AVSampleFormat, channels: Int32) throws(FFmpegError) {
        // Grows on write; one AAC frame to start with.
        guard let fifo = av_audio_fifo_alloc(format, channels, 1024) else {
            throw FFmpegError(function: "av_audio_fifo_alloc", code: sluice_averror(ENOMEM))
        }
        self.fifo = fifo
    }

    deinit { av_audio_fifo_free(fifo) }

    /// Samples per channel waiting.
    var count: Int { Int(av_audio_fifo_size(fifo)) }

    /// Appends the first `samples` samples of `frame`.
    func write(_ frame: RawFrame, samples: Int) throws(FFmpegError) {
        guard samples > 0 else { return }
        let planes = UnsafeMutablePointer<UnsafeMutableRawPointer?>(OpaquePointer(frame.pointer.pointee.extended_data))
        let written = try check(av_audio_fifo_write(fifo, planes, Int32(samples)), "av_audio_fifo_write")
        if written < samples { throw FFmpegError(function: "av_audio_fifo_write", code: sluice_averror(ENOMEM)) }
    }

    /// Moves `samples` samples into `frame`, whose buffers must hold that many.
    func read(into frame: RawFrame, samples: Int) throws(FFmpegError) {
        let planes = UnsafeMutablePointer<UnsafeMutableRawPointer?>(OpaquePointer(frame.pointer.pointee.extended_data))
        let read = try check(av_audio_fifo_read(fifo, planes, Int32(samples)), "av_audio_fifo_read")
        if read < samples { throw FFmpegError(function: "av_audio_fifo_read", code: sluice_averror(EIO)) }
    }
}
