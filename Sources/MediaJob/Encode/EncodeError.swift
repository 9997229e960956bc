/// Why an encode stage could not be set up or run. Messages name the stage and carry FFmpeg's own text.
public enum EncodeError: Error, Sendable, CustomStringConvertible {
    /// `encoder: vaapi` (or the `auto` probe) found no usable VAAPI device.
    case vaapiUnavailable(device: String, step: String, FFmpegError)
    /// libavcodec has no decoder for the input's codec.
    case noDecoder(kind: String, codec: String)
    /// This FFmpeg build lacks an encoder the job needs.
    case noEncoder(name: String)
    /// A setting the encoder cannot honour (an AAC sample rate it does not support, …).
    case unsupportedSetting(String)
    /// A C call failed while setting up or running a stage.
    case ffmpeg(stage: String, FFmpegError)

    public var description: String {
        switch self {
        case let .vaapiUnavailable(device, step, error):
            return "VAAPI device \(device) is not usable: cannot \(step) (\(error.function): \(error.message))"
        case let .noDecoder(kind, codec): return "no \(kind) decoder for \(codec) in this FFmpeg build"
        case let .noEncoder(name): return "encoder \(name) is not in this FFmpeg build"
        case let .unsupportedSetting(text): return text
        case let .ffmpeg(stage, error): return "\(stage) failed: \(error.message) (\(error.function))"
        }
    }
}
