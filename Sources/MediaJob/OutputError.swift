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
