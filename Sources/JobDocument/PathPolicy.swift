import Foundation

/// How job paths are trusted. `sluice run` trusts the operator; the worker takes jobs from other
/// services, so it keeps every path inside its input and output roots.
public enum PathPolicy: Sendable, Equatable {
    case trusted
    case rooted(inputRoot: String, outputRoot: String)

    /// Why a path was refused.
    public struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "\(path): \(reason)" }
    }

    /// The filesystem path for an input (a path or `file://` URL); network URLs are returned as they are.
    public func resolveInput(_ url: String) throws(Refusal) -> String {
        guard let path = PathPolicy.localPath(url) else { return url }
        switch self {
        case .trusted: return path
        case let .rooted(root, _): return try PathPolicy.contain(path, in: root, original: url)
        }
    }

    /// The filesystem path for a file output.
    public func resolveOutput(_ url: String) throws(Refusal) -> String {
        guard let path = PathPolicy.localPath(url) else { return url }
        switch self {
        case .trusted: return path
        case let .rooted(_, root): return try PathPolicy.contain(path, in: root, original: url)
        }
    }

    /// A path for `file://` URLs and plain paths; nil for network URLs.
    static func localPath(_ url: String) -> String? {
        switch SpecValidator.scheme(of: url) {
        case nil: return url
        case "file": return URL(string: url)?.path ?? String(url.dropFirst("file://".count))
        default: return nil
        }
    }

    /// The root as paths under it are returned: absolute, standardized, its own links resolved.
    public static func resolvedRoot(_ root: String) -> String {
        URL(fileURLWithPath: root).standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// Resolves `path` under `root` (relative paths are relative to the root) and refuses anything that
    /// lands outside it, `..` and symbolic links included.
    static func contain(_ path: String, in root: String, original: String) throws(Refusal) -> String {
        let rootURL = URL(fileURLWithPath: resolvedRoot(root))
        let candidate = path.hasPrefix("/") ? URL(fileURLWithPath: path) : rootURL.appendingPathComponent(path)
        // Resolve links in the existing part of the path (an output's file may not exist yet).
        let standardized = candidate.standardizedFileURL
        let parent = standardized.deletingLastPathComponent().resolvingSymlinksInPath()
        var resolved = parent.appendingPathComponent(standardized.lastPathComponent)
        if FileManager.default.fileExists(atPath: resolved.path) { resolved = resolved.resolvingSymlinksInPath() }
        let rootPath = rootURL.path.hasSuffix("/") ? rootURL.path : rootURL.path + "/"
        guard resolved.path.hasPrefix(rootPath) else {
            throw Refusal(path: original, reason: "is outside the allowed root \(root)")
        }
        return resolved.path
    }
}
