/// Why an `srt://` URL or a streamid was refused. The reason names the part or the rule that failed, never a
/// passphrase or a streamid (which carries the stream key).
public enum SRTAddressError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An `srt://` URL was refused.
    case invalidURL(reason: String)
    /// A streamid was refused.
    case invalidStreamID(reason: String)

    public var description: String {
        switch self {
        case let .invalidURL(reason): "invalid SRT URL: \(reason)"
        case let .invalidStreamID(reason): "invalid SRT streamid: \(reason)"
        }
    }

    /// A key or keyword fit to quote in an error: short and lower-case letters only, else a stand-in, because a
    /// malformed URL or streamid may have the stream key where a key was expected.
    static func quoted(_ word: Substring) -> String {
        word.count <= 16 && word.allSatisfy({ $0 >= "a" && $0 <= "z" }) ? "'\(word)'" : "(not shown)"
    }
}
