import Foundation

/// Where an output's bytes go. Files are written as `NAME.part` and renamed on success, so a failed job
/// leaves nothing that looks complete; network targets cannot be taken back.
public enum OutputTarget: Sendable, Equatable {
    case file(path: String)
    case network(url: String)

    /// The path written while the job runs.
    public static func partPath(for path: String) -> String { path + ".part" }
}

/// An opened target: a `ByteSink` plus what finishing or abandoning it means.
final class TargetWriter: @unchecked Sendable {
    let target: OutputTarget
    let sink: ByteSink

    init(target: OutputTarget, interrupter: Interrupter, options: [String: String] = [:]) throws {
        self.target = target
        switch target {
        case let .file(path):
            let part = OutputTarget.partPath(for: path)
            // `file:` keeps a path with a colon from being read as a protocol name. A file write never blocks
            // on the network, and a cancelled job must still write its trailer: not the job's interrupter.
            sink = try ByteSink(url: "file:" + part, options: options, interrupter: Interrupter())
        case let .network(url):
            sink = try ByteSink(url: url, options: options, interrupter: interrupter)
        }
    }

    /// True for `rtmp://` publishes: bytes are pushed out per tag and nothing is patched afterwards.
    var isNetwork: Bool {
        if case .network = target { return true }
        return false
    }

    /// Flushes and closes; for files the bytes are complete in `NAME.part` after this.
    func close() throws { try sink.close() }

    /// Makes a closed file visible under its real name (renames `NAME.part` over `NAME`).
    func publish() throws {
        if case let .file(path) = target {
            let part = OutputTarget.partPath(for: path)
            guard rename(part, path) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(part)
                throw OutputError.rename(path: path, reason: reason)
            }
        }
    }

    /// Closes without committing; a file's `.part` is removed.
    func discard() {
        try? sink.close()
        if case let .file(path) = target { unlink(OutputTarget.partPath(for: path)) }
    }
}

/// Output-side failures that are not FFmpeg's.
public enum OutputError: Error, Sendable, Equatable, CustomStringConvertible {
    case rename(path: String, reason: String)
    case missingStream(output: String, kind: String)
    case unsupported(output: String, reason: String)

    public var description: String {
        switch self {
        case let .rename(path, reason): return "could not rename \(OutputTarget.partPath(for: path)) to \(path): \(reason)"
        case let .missingStream(output, kind): return "output \(output) needs \(kind), but the input has no \(kind) stream (or it is dropped)"
        case let .unsupported(output, reason): return "output \(output): \(reason)"
        }
    }
}
