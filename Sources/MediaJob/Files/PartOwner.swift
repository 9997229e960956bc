// docs/ARCHITECTURE.md §7: whose temporary output file a `.part` is, so that a worker can tell its own leftovers from
// the files other workers are writing in a shared output root.

/// The owner tag carried in a temporary file's name, `.NAME.<owner tag>.<16 hex>.part`: 16 lowercase hex
/// digits that the caller derives from the job id (see `Sluice`'s `PartOwner(jobID:)`), so every attempt of a
/// job, on any worker, names its parts the same way and no other job's parts match.
public struct PartOwner: Sendable, Equatable, CustomStringConvertible {
    /// Hex digits in a tag.
    public static let digits = 16

    /// The tag's text.
    public let tag: String

    /// A tag of exactly 16 lowercase hex digits; nil for anything else.
    /// - Parameter tag: the digits.
    public init?(tag: String) {
        guard PartOwner.isTag(Substring(tag)) else { return nil }
        self.tag = tag
    }

    /// The tag of 64 bits, as 16 hex digits (a hash of the job id, say).
    /// - Parameter bits: the owner's 64 bits.
    public init(bits: UInt64) {
        let digits = String(bits, radix: 16)
        tag = String(repeating: "0", count: PartOwner.digits - digits.count) + digits
    }

    public var description: String { tag }

    /// Whether `text` is 16 lowercase hex digits (the owner tag and the random part have this shape).
    static func isTag(_ text: Substring) -> Bool {
        text.utf8.count == digits && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }
}
