// RFC 8285 §8 the extmap attribute: a=extmap:<id>[/<direction>] <URI> [<extension attributes>].

/// Which local identifier an RTP header extension (named by its URI) carries in this session.
public struct RTPHeaderExtensionMap: Sendable, Equatable {
    /// RFC 9143 §15: the extension that carries the sender's a=mid, so BUNDLE can route packets before SSRCs are known.
    public static let midURI = "urn:ietf:params:rtp-hdrext:sdes:mid"
    /// The transport-wide sequence number that transport-cc feedback reports on.
    public static let transportWideSequenceNumberURI = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
    /// RFC 8285 §5: 1...14 in one-byte headers, up to 255 in two-byte headers.
    public static let identifierRange: ClosedRange<Int> = 1...255

    public var identifier: UInt8
    public var direction: MediaDirection?
    public var uri: String
    public var attributes: String?

    public init(identifier: UInt8, direction: MediaDirection? = nil, uri: String, attributes: String? = nil) {
        self.identifier = identifier
        self.direction = direction
        self.uri = uri
        self.attributes = attributes
    }

    init(parsing value: String, context: SDPLine) throws {
        let fields = value.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard fields.count >= 2 else { throw context.invalid("not <id> <URI>") }
        let idAndDirection = fields[0].split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let identifier = Int(idAndDirection[0]), Self.identifierRange.contains(identifier) else {
            throw context.invalid("extension id \(idAndDirection[0]) is not \(Self.identifierRange)")
        }
        self.identifier = UInt8(identifier)
        if idAndDirection.count > 1 {
            guard let direction = MediaDirection(rawValue: String(idAndDirection[1])) else {
                throw context.invalid("extension direction \(idAndDirection[1]) is not sendrecv, sendonly, recvonly or inactive")
            }
            self.direction = direction
        }
        uri = String(fields[1])
        attributes = fields.count > 2 ? String(fields[2]).trimmingSpaces : nil
    }

    /// What follows "a=extmap:".
    var value: String {
        let id = direction.map { "\(identifier)/\($0.rawValue)" } ?? String(identifier)
        return ([id, uri] + (attributes.map { [$0] } ?? [])).joined(separator: " ")
    }
}
