// RFC 8866 §5.2 Origin ("o="): <username> <sess-id> <sess-version> <nettype> <addrtype> <unicast-address>.

/// Who made a session description and which version of it this is; JSEP (RFC 8829 §5.2.1) fills it with "-", a
/// random 63-bit id, a version and a placeholder address.
public struct SDPOrigin: Sendable, Equatable {
    public var username: String
    public var sessionID: UInt64
    public var sessionVersion: UInt64
    /// "IN".
    public var networkType: String
    /// "IP4" or "IP6".
    public var addressType: String
    public var address: String

    public init(username: String = "-", sessionID: UInt64, sessionVersion: UInt64, networkType: String = "IN",
                addressType: String = "IP4", address: String = "127.0.0.1") {
        self.username = username
        self.sessionID = sessionID
        self.sessionVersion = sessionVersion
        self.networkType = networkType
        self.addressType = addressType
        self.address = address
    }

    init(parsing value: String, context: SDPLine) throws {
        let fields = value.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count == 6 else { throw context.invalid("\(fields.count) fields, expected 6") }
        guard let id = UInt64(fields[1]), let version = UInt64(fields[2]) else {
            throw context.invalid("session id \(fields[1]) or version \(fields[2]) is not a 64-bit number")
        }
        self.init(username: String(fields[0]), sessionID: id, sessionVersion: version, networkType: String(fields[3]),
                  addressType: String(fields[4]), address: String(fields[5]))
    }

    /// What follows "o=".
    var value: String { "\(username) \(sessionID) \(sessionVersion) \(networkType) \(addressType) \(address)" }
}
