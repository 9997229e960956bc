// RFC 2326 §4.2 (header field names are case-insensitive), §12 (the header fields).

/// A message's header fields in order, looked up without case; a name may repeat (WWW-Authenticate).
public struct RTSPHeaders: Sendable, Equatable, ExpressibleByDictionaryLiteral, Sequence {
    public private(set) var fields: [(name: String, value: String)]

    public init(_ fields: [(name: String, value: String)] = []) { self.fields = fields }

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { (name: $0.0, value: $0.1) }
    }

    /// The first value of `name`.
    public subscript(name: String) -> String? {
        let lowered = name.lowercased()
        return fields.first { $0.name.lowercased() == lowered }?.value
    }

    /// Every value of `name`, in order.
    public func values(_ name: String) -> [String] {
        let lowered = name.lowercased()
        return fields.filter { $0.name.lowercased() == lowered }.map(\.value)
    }

    public mutating func append(_ name: String, _ value: String) { fields.append((name, value)) }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    public static func == (lhs: RTSPHeaders, rhs: RTSPHeaders) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }
}
