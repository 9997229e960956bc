// docs/ARCHITECTURE.md §7: parts whose writer is gone for good and will never come back to remove them (a poison job,
// `sluice run` killed with -9, a job id never delivered again), found by age and by the writer's lock under an output
// root walked without following links. Whether the owner's job is still held somewhere is the caller's to ask (the
// worker asks the broker for the job's lease).
import Foundation
import MediaFormats

/// A temporary output file that nobody has written for a while and that no writer holds open.
public struct StalePart: Sendable, Equatable {
    /// The folders below the root, outermost first, then the part's name.
    public var components: [String]
    /// The job whose part it is (`.NAME.<owner>.<16 hex>.part`); nil for a part without an owner tag.
    public var owner: PartOwner?
    /// Seconds since it was last written.
    public var age: Double

    /// Its path under `root`, for messages.
    public func path(under root: String) -> String {
        components.reduce(root) { PathText.appending($1, to: $0) }
    }
}

extension PartSweep {
    /// Folders deeper than this below the root are not searched (a loop of bind mounts, say, ends here).
    static let maxDepth = 32

    /// The owner of a temporary file's name: `.some(owner)` for `.NAME.<owner>.<16 hex>.part`, `.some(nil)` for
    /// `.NAME.<16 hex>.part`, nil for a name that is no part.
    static func partOwner(ofName entry: String) -> PartOwner?? {
        let suffix = ".part"
        guard entry.hasPrefix("."), entry.hasSuffix(suffix) else { return nil }
        let fields = entry.dropFirst().dropLast(suffix.count).split(separator: ".", omittingEmptySubsequences: false)
        // NAME has at least one field, then the random digits, maybe after the owner tag.
        guard fields.count >= 2, let random = fields.last, PartOwner.isTag(random) else { return nil }
        if fields.count >= 3, PartOwner.isTag(fields[fields.count - 2]) {
            return .some(PartOwner(tag: String(fields[fields.count - 2])))
        }
        return .some(nil)
    }

    /// The parts below `root` (in every folder, links not followed) last written more than `seconds` ago and not
    /// held open by a writer (a writer holds a shared `flock` on its part for as long as it writes).
    /// - Parameters:
    ///   - root: the output root; a root that cannot be opened has none.
    ///   - seconds: how long a part must have gone unwritten.
    ///   - now: the wall clock, which file times are compared with.
    public static func staleParts(under root: String, olderThan seconds: Double, now: Date = Date()) -> [StalePart] {
        let descriptor = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return [] }
        defer { close(descriptor) }
        var found: [StalePart] = []
        collect(in: descriptor, below: [], olderThan: seconds, now: now.timeIntervalSince1970, into: &found)
        return found
    }

    /// Removes a part that `staleParts` found, if it is still there, still a regular file, still stale and still
    /// held by no writer (it is locked while it is removed, so a writer cannot take it meanwhile).
    /// - Returns: whether it was removed.
    public static func remove(_ part: StalePart, under root: String, olderThan seconds: Double, now: Date = Date()) -> Bool {
        guard let name = part.components.last,
              let folder = try? DirectoryHandle.open(root: root, components: part.components.dropLast().map { Substring($0) },
                                                     creating: false)
        else { return false }
        return withExtendedLifetime(folder) {
            guard let file = lockedStaleFile(name, in: folder.descriptor, olderThan: seconds, now: now.timeIntervalSince1970)
            else { return false }
            defer { close(file.descriptor) }
            return unlinkat(folder.descriptor, name, 0) == 0
        }
    }

    private static func collect(in directory: Int32, below path: [String], olderThan seconds: Double, now: Double,
                                into found: inout [StalePart]) {
        for (name, type) in listing(of: directory) {
            var kind = type
            if kind == UInt8(DT_UNKNOWN) {
                var info = stat()
                guard fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
                kind = (info.st_mode & S_IFMT) == S_IFDIR ? UInt8(DT_DIR) : (info.st_mode & S_IFMT) == S_IFREG ? UInt8(DT_REG) : 0
            }
            if kind == UInt8(DT_DIR) {
                guard path.count < maxDepth else { continue }
                let child = openat(directory, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                guard child >= 0 else { continue }
                collect(in: child, below: path + [name], olderThan: seconds, now: now, into: &found)
                close(child)
            } else if kind == UInt8(DT_REG), let owner = partOwner(ofName: name),
                      let file = lockedStaleFile(name, in: directory, olderThan: seconds, now: now) {
                close(file.descriptor)
                found.append(StalePart(components: path + [name], owner: owner, age: file.age))
            }
        }
    }

    /// The part `name` in `directory`, opened without following a link and locked exclusively, when it is a
    /// regular file last written more than `seconds` before `now` and no writer holds it; the caller closes it.
    private static func lockedStaleFile(_ name: String, in directory: Int32, olderThan seconds: Double, now: Double)
        -> (descriptor: Int32, age: Double)?
    {
        let descriptor = openat(directory, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG,
              case let age = now - (Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9), age > seconds,
              flock(descriptor, LOCK_EX | LOCK_NB) == 0
        else {
            close(descriptor)
            return nil
        }
        return (descriptor, age)
    }

    /// The names in a folder with their `d_type` (`.` and `..` left out).
    private static func listing(of directory: Int32) -> [(String, UInt8)] {
        // fdopendir takes the descriptor over: give it a copy.
        let copy = dup(directory)
        guard copy >= 0 else { return [] }
        guard let stream = fdopendir(copy) else {
            close(copy)
            return []
        }
        defer { closedir(stream) }
        var entries: [(String, UInt8)] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name != ".", name != ".." else { continue }
            entries.append((name, entry.pointee.d_type))
        }
        return entries
    }
}
