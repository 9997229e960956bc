import Foundation

/// Where an output's bytes go. Files are written under a temporary name and renamed on success (see
/// `OutputFile`), so a failed job leaves nothing that looks complete; network targets cannot be taken back.
public enum OutputTarget: Sendable, Equatable {
    case file(path: String)
    case network(url: String)
}

/// An opened target: a `ByteSink` plus what finishing or abandoning it means.
final class TargetWriter: @unchecked Sendable {
    let target: OutputTarget
    let sink: ByteSink
    /// A file target's temporary file; nil for a network target.
    private let file: OutputFile?

    /// - Parameters:
    ///   - target: a file or a network URL.
    ///   - interrupter: the job's, for network writes (a file write never blocks on the network, and a
    ///     cancelled job must still write its trailer).
    ///   - options: protocol options for a network target.
    ///   - root: the output root a file must be created under, walked without following links; nil uses
    ///     the path as given.
    ///   - owner: the job writing a file target, named in its temporary name.
    init(target: OutputTarget, interrupter: Interrupter, options: [String: String] = [:], root: String? = nil,
         owner: PartOwner? = nil) throws {
        self.target = target
        switch target {
        case let .file(path):
            let (file, descriptor) = try OutputFile.create(path: path, root: root, owner: owner)
            self.file = file
            do {
                sink = try ByteSink(fileDescriptor: descriptor)
            } catch {
                file.discard()
                throw error
            }
        case let .network(url):
            file = nil
            sink = try ByteSink(url: url, options: options, interrupter: interrupter)
        }
    }

    /// True for `rtmp://` publishes: bytes are pushed out per tag and nothing is patched afterwards.
    var isNetwork: Bool { file == nil }

    /// Flushes and closes; for files the bytes are complete in the temporary file after this.
    func close() throws { try sink.close() }

    /// Makes a closed file visible under its real name (an atomic rename in its folder).
    func publish() throws { try file?.publish() }

    /// Closes without committing; a file's temporary file is removed.
    func discard() {
        try? sink.close()
        file?.discard()
    }
}

/// Output-side failures that are not FFmpeg's.
public enum OutputError: Error, Sendable, Equatable, CustomStringConvertible {
    case missingStream(output: String, kind: String)
    case unsupported(output: String, reason: String)

    public var description: String {
        switch self {
        case let .missingStream(output, kind): return "output \(output) needs \(kind), but the input has no \(kind) stream (or it is dropped)"
        case let .unsupported(output, reason): return "output \(output): \(reason)"
        }
    }
}
