import Foundation

/// The checks a job document passes before it is parsed: its size, how deep its arrays and objects nest,
/// and that no object repeats a key. All three take one pass over the bytes, so a 100 MB document or
/// `[[[[…` a million deep is refused before the recursive JSON decoder (whose stack such a document
/// would exhaust) ever sees it. Repeated keys are refused because parsers disagree on which one counts
/// (Foundation keeps the first, Python's json the last): a job must mean the same thing to every reader.
enum DocumentShape {
    /// One open array or object.
    private struct Level {
        let isObject: Bool
        /// In an object: the next string is a key (after `{` or `,`).
        var expectingKey: Bool
        var keys: Set<String> = []
        /// The key whose value is being read, or the index of the array element.
        var component: String = ""
        var index = 0
    }

    /// The problem with `data`'s size, nesting or keys, or nil when the parser may read it.
    static func problem(in data: some Collection<UInt8>, maxBytes: Int = JobLimits.documentBytes, maxDepth: Int = JobLimits.nestingDepth) -> SpecProblem? {
        if data.count > maxBytes {
            return SpecProblem(path: "", message: "the document is \(data.count) bytes; at most \(maxBytes) are allowed")
        }
        let bytes = Array(data)
        var levels: [Level] = []
        var stringStart: Int?
        var escaped = false
        var hasEscape = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            defer { index += 1 }
            if let start = stringStart {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                    hasEscape = true
                } else if byte == UInt8(ascii: "\"") {
                    stringStart = nil
                    guard var level = levels.last, level.isObject, level.expectingKey else { continue }
                    let key = decodeKey(bytes[start...index], escaped: hasEscape)
                    level.expectingKey = false
                    if !level.keys.insert(key).inserted {
                        return SpecProblem(path: path(levels.dropLast(), key), message: "appears more than once in its object")
                    }
                    level.component = key
                    levels[levels.count - 1] = level
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                stringStart = index
                hasEscape = false
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                levels.append(Level(isObject: byte == UInt8(ascii: "{"), expectingKey: byte == UInt8(ascii: "{")))
                if levels.count > maxDepth {
                    return SpecProblem(path: "", message: "arrays and objects nest deeper than \(maxDepth) levels")
                }
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                // Unbalanced closers are the JSON parser's to report.
                _ = levels.popLast()
            case UInt8(ascii: ","):
                guard !levels.isEmpty else { continue }
                if levels[levels.count - 1].isObject { levels[levels.count - 1].expectingKey = true } else { levels[levels.count - 1].index += 1 }
            default: break
            }
        }
        return nil
    }

    /// A key as the parser will see it: escapes such as `\u0070` decoded, so they cannot hide a repeat.
    private static func decodeKey(_ quoted: ArraySlice<UInt8>, escaped: Bool) -> String {
        guard escaped else { return String(decoding: quoted.dropFirst().dropLast(), as: UTF8.self) }
        return (try? JSONDecoder().decode(String.self, from: Data(quoted))) ?? String(decoding: quoted, as: UTF8.self)
    }

    /// The key path of `key` inside `levels`, as the validator names it (`outputs[1].url`).
    private static func path(_ levels: ArraySlice<Level>, _ key: String) -> String {
        var text = ""
        for level in levels {
            if level.isObject {
                text += (text.isEmpty ? "" : ".") + SpecValidator.shortened(level.component)
            } else {
                text += "[\(level.index)]"
            }
        }
        return text + (text.isEmpty ? "" : ".") + SpecValidator.shortened(key)
    }
}
