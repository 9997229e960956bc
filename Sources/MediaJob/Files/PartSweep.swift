// docs/ARCHITECTURE.md §7: removing the temporary files an earlier, killed attempt of a job left next to its outputs.
import Foundation
import MediaFormats

/// Finds and removes a job's own leftover `.NAME.<owner>.<16 hex>.part` files.
///
/// Only the caller knows that nobody else is writing them: the worker calls this when an attempt starts, while
/// it holds the job's lease, so no other attempt of the same job runs anywhere, and no other job's parts carry
/// the same owner tag. Files of other jobs, of `sluice run` without an owner, and anything that is not a
/// regular file are left alone.
public enum PartSweep {
    /// Removes the parts `owner` left for `paths`, in their folders.
    /// - Parameters:
    ///   - paths: the job's file outputs, absolute under `root` when there is one.
    ///   - root: the output root, walked without following links; nil uses the paths as given.
    ///   - owner: the job whose parts to remove.
    /// - Returns: the paths removed (folder as the job named it, plus the part's name).
    public static func removeParts(of paths: [String], root: String?, owner: PartOwner) -> [String] {
        var removed: [String] = []
        for path in paths {
            // A folder that does not exist (yet) holds no leftovers; one that cannot be opened is the run's to report.
            guard let folder = try? OutputFile.folder(of: path, root: root, creating: false) else { continue }
            let (directory, name) = folder
            for entry in entries(of: directory) where isPart(entry, of: name, owner: owner) {
                let unlinked = withExtendedLifetime(directory) { unlinkat(directory.descriptor, entry, 0) == 0 }
                if unlinked { removed.append(PathText.appending(entry, to: PathText.parent(path))) }
            }
        }
        return removed
    }

    /// Whether `entry` is `.NAME.<owner tag>.<16 hex>.part`.
    static func isPart(_ entry: String, of name: String, owner: PartOwner) -> Bool {
        let prefix = ".\(name).\(owner.tag)."
        let suffix = ".part"
        guard entry.hasPrefix(prefix), entry.hasSuffix(suffix),
              entry.utf8.count == prefix.utf8.count + OutputFile.randomDigits + suffix.utf8.count
        else { return false }
        let random = entry.dropFirst(prefix.count).dropLast(suffix.count)
        return PartOwner.isTag(random)
    }

    /// The names of the regular files in a folder (`.` and `..`, folders and links left out).
    static func entries(of directory: DirectoryHandle) -> [String] {
        // fdopendir takes the descriptor over: give it a copy, the handle keeps its own.
        let copy = withExtendedLifetime(directory) { dup(directory.descriptor) }
        guard copy >= 0 else { return [] }
        guard let stream = fdopendir(copy) else {
            close(copy)
            return []
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            guard entry.pointee.d_type == UInt8(DT_REG) || entry.pointee.d_type == UInt8(DT_UNKNOWN) else { continue }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            names.append(name)
        }
        return names
    }
}
