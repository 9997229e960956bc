// docs/JOBS.md "A ladder in HLS": the job's `hls_multivariant` key, the multivariant playlist that lists its HLS
// outputs as variants, each by a URI relative to the multivariant playlist's folder.

extension SpecValidator {
    /// Checks `hls_multivariant`: a local `.m3u8` path that is no output's, with at least two HLS outputs, each of
    /// whose playlists lies in its folder or below (so a relative URI names it).
    mutating func checkMultivariant(_ path: String, outputs: [OutputSpec]) {
        let key = "hls_multivariant"
        if let scheme = SpecValidator.scheme(of: path), scheme != "file" {
            return problem(key, "must be a file path (a .m3u8 beside or above the HLS outputs), got \(quoted(path))")
        }
        guard SpecValidator.pathExtension(of: path).lowercased() == "m3u8" else {
            return problem(key, "must name a .m3u8 file, got \(quoted(path))")
        }
        let hls = outputs.enumerated().filter { $0.element.format == .hls }
        guard hls.count >= JobLimits.minMultivariantVariants else {
            return problem(key, "lists the job's HLS outputs as variants and needs at least \(JobLimits.minMultivariantVariants), got \(hls.count)")
        }
        guard let master = MultivariantURI.localPath(path) else { return problem(key, "must not be empty") }
        var same: Set<Int> = []
        for (index, output) in outputs.enumerated() where MultivariantURI.localPath(output.url).map(MultivariantURI.normalized) == MultivariantURI.normalized(master) {
            problem(key, "is the same file as outputs[\(index)].url")
            same.insert(index)
        }
        for (index, output) in hls where !same.contains(index) {
            guard let media = MultivariantURI.localPath(output.url), MultivariantURI.relative(media, from: master) != nil else {
                problem("outputs[\(index)].url", "must be in the folder of hls_multivariant (\(quoted(path))) or below it, which names each variant by a relative URI")
                continue
            }
        }
    }
}

/// How a multivariant playlist names its variants: the media playlist's path relative to its own folder, worked out
/// on the text of the paths (no file system), so the validator and the plan agree.
public enum MultivariantURI {
    /// The relative URI of `media` from the folder of `multivariant`; nil when `media` is not in that folder or below,
    /// or is the multivariant playlist itself. Both are paths as a job gives them (`a/./b`, `a//b` and `a/x/../b` read
    /// as `a/b`), both relative or both absolute.
    public static func relative(_ media: String, from multivariant: String) -> String? {
        let own = components(normalized(multivariant))
        let folder = own.dropLast()
        let target = components(normalized(media))
        guard media.hasPrefix("/") == multivariant.hasPrefix("/"), target.count > folder.count, target != own,
              Array(target.prefix(folder.count)) == Array(folder), !target.contains("..") else { return nil }
        return target.dropFirst(folder.count).joined(separator: "/")
    }

    /// The path with `.`, empty components and `x/..` pairs removed (a leading `..` stays).
    public static func normalized(_ path: String) -> String {
        var kept: [Substring] = []
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            if component == "." { continue }
            if component == "..", let last = kept.last, last != ".." {
                kept.removeLast()
                continue
            }
            kept.append(component)
        }
        return (path.hasPrefix("/") ? "/" : "") + kept.joined(separator: "/")
    }

    /// A plain path, or a `file://` URL's path; nil for an empty text.
    static func localPath(_ text: String) -> String? {
        guard !text.isEmpty else { return nil }
        return PathPolicy.localPath(text)
    }

    private static func components(_ path: String) -> [Substring] { path.split(separator: "/") }
}
