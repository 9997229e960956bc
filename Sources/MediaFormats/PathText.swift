/// Splitting and joining slash-separated paths as text. Foundation's `NSString` path methods trap on Linux for
/// inputs a job can carry (a one-letter name, slash runs such as `///a//`; found by fuzzing), so paths from
/// jobs and options are taken apart here instead.
public enum PathText {
    /// The last component, trailing slashes ignored (`"a/b.flv/"` → `"b.flv"`, `"/"` → `""`).
    public static func lastComponent(_ path: String) -> String {
        var name = Substring(path)
        while name.hasSuffix("/") { name = name.dropLast() }
        if let slash = name.lastIndex(of: "/") { name = name[name.index(after: slash)...] }
        return String(name)
    }

    /// Everything before the last component, without trailing slashes; `""` when there is no folder part
    /// (`"o"` → `""`, `"/o"` → `"/"`, `"a//b"` → `"a"`).
    public static func parent(_ path: String) -> String {
        var text = Substring(path)
        while text.count > 1, text.hasSuffix("/") { text = text.dropLast() }
        guard let slash = text.lastIndex(of: "/") else { return "" }
        var folder = text[..<slash]
        while folder.hasSuffix("/") { folder = folder.dropLast() }
        return folder.isEmpty ? "/" : String(folder)
    }

    /// `folder/name`, with exactly one slash between them.
    public static func appending(_ name: String, to folder: String) -> String {
        guard !folder.isEmpty else { return name }
        return folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

}
