// RFC 8866 §5.7 Connection Information ("c="): <nettype> <addrtype> <connection-address>.

/// The address a session or media section is reached at; WebRTC reads the candidates instead and writes
/// "IN IP4 0.0.0.0" or its default candidate's address here (RFC 8829 §5.2.1).
public struct SDPConnection: Sendable, Equatable {
    /// "IN".
    public var networkType: String
    /// "IP4" or "IP6".
    public var addressType: String
    /// The address, with "/<ttl>" or "/<count>" for multicast as written.
    public var address: String

    public init(networkType: String = "IN", addressType: String, address: String) {
        self.networkType = networkType
        self.addressType = addressType
        self.address = address
    }

    /// "IN IP6" for an address with a colon, "IN IP4" otherwise.
    public init(address: String) {
        self.init(addressType: address.contains(":") ? "IP6" : "IP4", address: address)
    }

    init(parsing value: String, context: SDPLine) throws {
        let fields = value.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count == 3 else { throw context.invalid("\(fields.count) fields, expected 3") }
        self.init(networkType: String(fields[0]), addressType: String(fields[1]), address: String(fields[2]))
    }

    /// What follows "c=".
    var value: String { "\(networkType) \(addressType) \(address)" }
}
