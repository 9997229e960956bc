// docs/ARCHITECTURE.md §7 (segmented recordings): the segment a killed attempt was writing is kept, playable, rather
// than swept away: cut after its last whole fragment (MP4) or packet (MPEG-TS), synced and given its final name.
import Foundation
import Glibc
import MediaFormats

/// Salvages the `.part` a killed attempt of a job left for a segment it was writing.
///
/// As `PartSweep`, only for a caller that holds the job's lease: no other attempt writes these parts.
public enum PartSalvage {
    /// The containers a cut-short segment can be salvaged from.
    public enum Container: Sendable, Equatable {
        case mp4, mpegts
    }

    /// A segment made whole again.
    public struct Salvaged: Sendable, Equatable {
        /// The segment's final path (as the job named it).
        public var path: String
        public var bytes: Int64
        /// Bytes cut off the end (an incomplete fragment or packet).
        public var cutBytes: Int64
        /// When the part was last written, Unix seconds: where the segment ended.
        public var lastWritten: Double
    }

    /// Salvages `owner`'s part of the segment `path`: keeps what plays, syncs it, links it under `path` (never over
    /// an existing file) and removes the part. A part with nothing playable is removed.
    /// - Returns: the segment, or nil when no part was there or nothing of it played.
    public static func salvage(path: String, root: String?, owner: PartOwner, container: Container) throws(FileAccessError) -> Salvaged? {
        guard let folder = try? OutputFile.folder(of: path, root: root, creating: false) else { return nil }
        let (directory, name) = folder
        // The folder's descriptor must stay open through every call that takes its number.
        defer { withExtendedLifetime(directory) {} }
        var salvaged: Salvaged?
        for entry in PartSweep.entries(of: directory) where PartSweep.isPart(entry, of: name, owner: owner) {
            // A second part of the same segment (never written by one attempt) is not the one to keep.
            guard salvaged == nil, let kept = try keep(entry, in: directory.descriptor, path: path, container: container) else {
                unlinkat(directory.descriptor, entry, 0)
                continue
            }
            // A link, not a rename: an existing file of that name is never replaced.
            guard linkat(directory.descriptor, entry, directory.descriptor, name, 0) == 0 else {
                let error = FileAccessError.system(path)
                throw FileAccessError(path: path, reason: "cannot give the salvaged segment its name: \(error.reason)", code: error.code)
            }
            unlinkat(directory.descriptor, entry, 0)
            guard fsync(directory.descriptor) == 0 || errno == EINVAL else { throw .system(path) }
            salvaged = Salvaged(path: path, bytes: kept.bytes, cutBytes: kept.cut, lastWritten: kept.modified)
        }
        return salvaged
    }

    /// Truncates a part to what plays and syncs it; nil when nothing does.
    private static func keep(_ entry: String, in directory: Int32, path: String, container: Container) throws(FileAccessError)
        -> (bytes: Int64, cut: Int64, modified: Double)?
    {
        let descriptor = openat(directory, entry, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw .system(path) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .system(path) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let size = Int64(info.st_size)
        let read: SegmentSalvageScan.Read = { offset, count in
            var bytes = [UInt8](repeating: 0, count: count)
            let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
            return got > 0 ? Array(bytes.prefix(got)) : []
        }
        let length = container == .mp4 ? SegmentSalvageScan.mp4Length(size: size, read: read)
                                        : SegmentSalvageScan.tsLength(size: size, read: read)
        guard let length else { return nil }
        guard ftruncate(descriptor, off_t(length)) == 0 else { throw .system(path) }
        while fsync(descriptor) != 0 {
            if errno == EINTR { continue }
            guard errno == EINVAL else { throw .system(path) }
            break
        }
        let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
        return (length, size - length, modified)
    }
}

extension OutputFile {
    /// Whether a file of that name exists at `path` (reached as `create` does, links not followed).
    public static func exists(path: String, root: String?) -> Bool {
        guard let found = try? folder(of: path, root: root, creating: false) else { return false }
        let (directory, name) = found
        var info = stat()
        return withExtendedLifetime(directory) { fstatat(directory.descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 }
    }
}

extension PartSalvage {
    /// The segments of a recording whose parts `owner` left on disk: what an attempt killed on another worker was
    /// writing (its own record of the segment went with its database). Looks in the folders the pattern gives for the
    /// last three segment starts before `now`, for `.NAME.<owner>.<random>.part` files.
    /// - Returns: each segment's final path (as the job names it), once.
    public static func segmentParts(of settings: SegmentSettings, root: String?, owner: PartOwner, now: Double) -> [String] {
        let folders = settings.folders(ofSlots: 3, endingAt: now)
        var paths: [String] = []
        let suffix = ".\(owner.tag)." + String(repeating: "0", count: OutputFile.randomDigits) + ".part"
        for folder in folders {
            // A folder that does not exist holds no part.
            guard let (directory, _) = try? OutputFile.folder(of: PathText.appending("segment", to: folder), root: root, creating: false) else {
                continue
            }
            for entry in PartSweep.entries(of: directory) where entry.hasPrefix(".") && entry.utf8.count > suffix.utf8.count + 1 {
                let name = String(entry.dropFirst().dropLast(suffix.count))
                guard PartSweep.isPart(entry, of: name, owner: owner) else { continue }
                let path = PathText.appending(name, to: folder)
                if !paths.contains(path) { paths.append(path) }
            }
        }
        return paths
    }
}

extension SegmentSettings {
    /// When the segment at `path` started, Unix seconds: the latest second at or before `end` (its last write) whose
    /// name under the pattern is `path`, within two segment lengths; else the boundary before `end`.
    public func start(ofSegmentAt path: String, endingBy end: Double) -> Double {
        let length = max(seconds, 1)
        let last = Int64(end.rounded(.down))
        for second in stride(from: last, through: max(0, last - 2 * length), by: -1)
        where pattern.path(start: second, number: second / length) == path {
            return Double(second)
        }
        return Double(last / length * length)
    }
}
