import Foundation
import MediaPipeline

/// An opened file target: a `ByteSink` on its temporary file, plus what finishing or abandoning it means.
/// (Network targets are the live engine's: see `EnginePublishOutput`.)
final class TargetWriter: @unchecked Sendable {
    let path: String
    let sink: ByteSink
    private let file: OutputFile

    /// - Parameters:
    ///   - path: the file to write (under a temporary name until `publish`).
    ///   - root: the output root the file must be created under, walked without following links; nil uses
    ///     the path as given.
    ///   - owner: the job writing it, named in its temporary name.
    init(path: String, root: String? = nil, owner: PartOwner? = nil) throws {
        self.path = path
        let (file, descriptor) = try OutputFile.create(path: path, root: root, owner: owner)
        self.file = file
        sink = ByteSink(fileDescriptor: descriptor)
    }

    /// Flushes and closes; the bytes are complete in the temporary file after this.
    func close() throws { try sink.close() }

    /// Syncs the closed file's bytes to disk ahead of `rename` (on the output's own thread).
    func sync() throws { try file.sync() }

    /// Makes a closed file visible under its real name (an atomic rename in its folder); its folder is synced
    /// after, with the job's other outputs' (`OutputFile.syncFolders`).
    func rename() throws -> OutputFile {
        try file.rename()
        return file
    }

    /// Closes without committing; the temporary file is removed.
    func discard() {
        try? sink.close()
        file.discard()
    }
}
