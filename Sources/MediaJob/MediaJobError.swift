import Foundation
import MediaFormats

/// Why a job failed. Messages name the input or output (already redacted by the caller).
public enum MediaJobError: Error, Sendable, CustomStringConvertible {
    case openInput(name: String, FFmpegError)
    /// A file input refused or missing under the input root.
    case inputFile(name: String, FileAccessError)
    case readInput(name: String, FFmpegError)
    case inputTimedOut(name: String, seconds: Double)
    /// A live input that sent nothing for `seconds` while its connections kept failing: the last failure says why.
    case inputLost(name: String, seconds: Double, lastError: String)
    case noStreams(name: String)
    case unsupportedCodec(kind: String, stream: Int, codec: String)
    /// A live input carries a codec the job cannot take (named, never a silent "no packets").
    case unsupportedLiveCodec(kind: String, codec: String)
    case invalidStream(kind: String, stream: Int, MediaFormatError)
    case encode(kind: String, stream: Int, EncodeError)
    case output(index: Int, name: String, any Error)
    case openOutput(index: Int, name: String, any Error)
    /// Every output gave up; `lastError` is why the last one did (a refused publish, a certificate, …).
    case allOutputsFailed(name: String, lastError: String?)
    case publisherRefused(name: String, PublisherRefusal)
    case emptyOutput(index: Int, name: String)
    /// The job's multivariant playlist (`hls_multivariant`) could not be written or published.
    case multivariantPlaylist(name: String, any Error)
    /// The relay engine could not take or keep its input (a listener that cannot bind, a key another job holds).
    case liveInput(name: String, reason: String)
    /// libav, which codec jobs need and relays do not, could not be loaded on this machine.
    case codecLibraries(reason: String)

    public var description: String {
        switch self {
        case let .openInput(name, error): return "cannot open input \(name): \(error.message) (\(error.function))"
        case let .inputFile(name, error): return "cannot open input \(name): \(error.reason)"
        case let .readInput(name, error): return "reading input \(name) failed: \(error.message) (\(error.function))"
        case let .inputLost(name, seconds, lastError):
            return "input \(name) sent no data for \(MediaJobError.format(seconds)) s (last error: \(lastError))"
        case let .inputTimedOut(name, seconds): return "input \(name) sent no data for \(MediaJobError.format(seconds)) s"
        case let .noStreams(name): return "input \(name) has no video or audio stream to use"
        case let .unsupportedCodec(kind, stream, codec):
            return "\(kind) stream \(stream) is \(codec): not supported in copy mode (copy carries H.264, HEVC, AV1, VP9 and VP8 video and AAC and Opus audio; set \(kind).mode to encode or drop)"
        case let .unsupportedLiveCodec(kind, codec):
            return "the live input's \(kind) is \(codec), which this job cannot carry (the codec stage decodes H.264, HEVC, AV1, VP9, VP8, AAC and Opus; set \(kind).mode to drop to use the rest of the stream)"
        case let .invalidStream(kind, stream, error): return "\(kind) stream \(stream) is malformed: \(error)"
        case let .encode(kind, stream, error): return "cannot encode \(kind) stream \(stream): \(error)"
        case let .output(index, name, error):
            if MediaJobError.isNoSpace(error) { return "output \(name): no space left on device (output \(index))" }
            return "output \(index) (\(name)) failed: \(MediaJobError.describe(error))"
        case let .openOutput(index, name, error):
            if MediaJobError.isNoSpace(error) { return "output \(name): no space left on device (output \(index), while opening)" }
            return "cannot open output \(index) (\(name)): \(MediaJobError.describe(error))"
        case let .allOutputsFailed(name, lastError):
            return "every output of input \(name) has failed and given up reconnecting" + (lastError.map { " (last error: \($0))" } ?? "")
        case let .publisherRefused(name, refusal): return "listening on \(name): refused the publisher: \(refusal)"
        case let .emptyOutput(index, name):
            return "output \(index) (\(name)) received no packets: the input ended before any of its stream reached it"
        case let .liveInput(name, reason): return "live input \(name): \(reason)"
        case let .codecLibraries(reason): return "the codec libraries (libav) could not be loaded: \(reason)"
        case let .multivariantPlaylist(name, error):
            if MediaJobError.isNoSpace(error) { return "multivariant playlist \(name): no space left on device" }
            return "multivariant playlist \(name) failed: \(MediaJobError.describe(error))"
        }
    }

    /// A full disk (or quota) under an output, however it surfaced: through AVIO or creating the file.
    public static func isNoSpace(_ error: any Error) -> Bool {
        // FFmpeg's AVERROR(e) is -e where errno values are positive (libavutil/error.h), as on Linux.
        if let error = error as? FFmpegError { return error.code == -ENOSPC || error.code == -EDQUOT }
        if let error = error as? FileAccessError { return error.code == ENOSPC || error.code == EDQUOT }
        if let error = error as? MediaJobError {
            switch error {
            case let .output(_, _, inner), let .openOutput(_, _, inner), let .multivariantPlaylist(_, inner): return isNoSpace(inner)
            default: return false
            }
        }
        return false
    }

    package static func describe(_ error: any Error) -> String {
        if let error = error as? FFmpegError { return "\(error.message) (\(error.function))" }
        return "\(error)"
    }

    package static func format(_ seconds: Double) -> String {
        seconds.rounded() == seconds && abs(seconds) < 1e15 ? String(Int64(seconds)) : String(seconds)
    }
}
