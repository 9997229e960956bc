import CFFmpeg
import Foundation

/// FFmpeg's log, seen per thread: while `capture` runs, warnings and errors that FFmpeg logs on the
/// calling thread are collected instead of printed. The rtmp listener reports what a publisher asked for
/// only in such warnings (and they would print the publisher's stream key to standard error).
///
/// One process-wide `av_log` callback is installed on first use; messages from other threads, and
/// every message below warning level, go on to FFmpeg's default callback unchanged.
enum FFmpegLogCapture {
    /// One line FFmpeg logged, without its trailing newline.
    struct Line: Sendable, Equatable {
        var level: Int32
        var text: String
    }

    /// Collects lines for one thread. `@unchecked Sendable`: only the owning thread appends and reads.
    private final class Lines: @unchecked Sendable {
        var lines: [Line] = []
    }

    private static let threadKey = "sluice.ffmpeg-log-capture"
    /// Longest message kept; FFmpeg's own default callback uses the same size.
    private static let maxLineLength = 1024

    private static let installCallback: Void = {
        av_log_set_callback { context, level, format, arguments in
            guard let arguments else { return }
            // Only warnings and worse are ever captured: the common trace/debug calls stay cheap.
            if level <= AV_LOG_WARNING, let format,
               let lines = Thread.current.threadDictionary[FFmpegLogCapture.threadKey] as? Lines {
                var buffer = [CChar](repeating: 0, count: FFmpegLogCapture.maxLineLength)
                _ = vsnprintf(&buffer, buffer.count, format, arguments)
                var text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                while text.hasSuffix("\n") { text.removeLast() }
                lines.lines.append(Line(level: level, text: text))
                return
            }
            av_log_default_callback(context, level, format, arguments)
        }
    }()

    /// Runs `body` and returns how it ended with the warnings and errors FFmpeg logged on this thread meanwhile.
    static func capture<T>(_ body: () throws -> T) -> (Result<T, any Error>, [Line]) {
        _ = installCallback
        let lines = Lines()
        let dictionary = Thread.current.threadDictionary
        dictionary[threadKey] = lines
        defer { dictionary.removeObject(forKey: threadKey) }
        let result = Result { try body() }
        return (result, lines.lines)
    }
}
