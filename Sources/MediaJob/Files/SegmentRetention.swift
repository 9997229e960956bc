// docs/JOBS.md (Recordings in segments): `retain` counts the segments on disk, whoever wrote them.
import Glibc
import MediaFormats

extension SegmentSettings {
    /// Segment slots looked back over for the folders a pattern with time fields in its folders gives: twice `retain`,
    /// and at least 1,000 (a pattern whose folder has no field is one folder, however old its segments).
    static func slotsLookedBack(retainCount: Int?) -> Int64 { Int64(max(2 * (retainCount ?? 0), 1000)) }

    /// The closed segments of this recording on disk, oldest first (by modification time, then path): every file in
    /// the folders the pattern gives for the recent slots whose name the pattern gives (`SegmentNamePattern.names`),
    /// whichever worker wrote it, and `known` segments (this worker's records) still there. A segment another worker
    /// closed is in no record here: its database went with it, but the files stay, and `retain` must count them.
    /// The folders the pattern gives for the last `count` segment slots up to the one `now` is in (none before the
    /// epoch), each once, oldest first.
    func folders(ofSlots count: Int64, endingAt now: Double) -> [String] {
        let length = max(seconds, 1)
        let latest = Int64(now.rounded(.down)) / length
        var folders: [String] = []
        var seen = Set<String>()
        for number in max(0, latest - count + 1)...max(0, latest) where number <= latest {
            let folder = PathText.parent(pattern.path(start: number * length, number: number))
            if seen.insert(folder).inserted { folders.append(folder) }
        }
        return folders
    }

    public func closedSegmentsOnDisk(root: String?, now: Double, known: [RecordedSegment]) -> [RecordedSegment] {
        let folders = folders(ofSlots: Self.slotsLookedBack(retainCount: retainCount) + 1, endingAt: now)
        var found: [(segment: RecordedSegment, modified: Int)] = []
        var seenPaths = Set<String>()
        for folder in folders {
            guard let (directory, _) = try? OutputFile.folder(of: PathText.appending("segment", to: folder), root: root, creating: false) else {
                continue
            }
            for entry in PartSweep.entries(of: directory) where !entry.hasPrefix(".") {
                let path = PathText.appending(entry, to: folder)
                guard pattern.names(path), seenPaths.insert(path).inserted else { continue }
                var info = stat()
                guard withExtendedLifetime(directory, { fstatat(directory.descriptor, entry, &info, AT_SYMLINK_NOFOLLOW) }) == 0,
                      info.st_mode & S_IFMT == S_IFREG else { continue }
                found.append((RecordedSegment(path: path, bytes: Int64(info.st_size)), info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec))
            }
        }
        // A known segment in a folder not looked in (an old slot of a pattern with dated folders) still counts.
        for segment in known where !seenPaths.contains(segment.path) && OutputFile.exists(path: segment.path, root: root) {
            found.append((segment, Int.min))
            seenPaths.insert(segment.path)
        }
        found.sort { ($0.modified, $0.segment.path) < ($1.modified, $1.segment.path) }
        return found.map(\.segment)
    }
}
