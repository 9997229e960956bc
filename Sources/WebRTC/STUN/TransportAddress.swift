// RFC 5389 §5 ("transport address"): an IP address and a UDP port, as MAPPED-ADDRESS and XOR-MAPPED-ADDRESS carry them.

/// An IPv4 or IPv6 address and a port: where a datagram came from, or where a STUN server saw it come from.
/// Socket types stay with the caller; this is only the bytes.
public struct TransportAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address family, numbered as STUN's address attributes number it (RFC 5389 §15.1).
    public enum Family: UInt8, Sendable {
        case ipv4 = 0x01
        case ipv6 = 0x02

        /// Bytes of an address of this family.
        public var addressSize: Int { self == .ipv4 ? 4 : 16 }
    }

    /// The address in network order: 4 bytes (IPv4) or 16 (IPv6).
    public let address: [UInt8]
    public let port: UInt16

    /// - Parameters:
    ///   - address: 4 bytes for IPv4 or 16 for IPv6, in network order; any other count gives nil.
    ///   - port: the UDP port.
    public init?(address: [UInt8], port: UInt16) {
        guard address.count == 4 || address.count == 16 else { return nil }
        self.address = address
        self.port = port
    }

    /// An IPv4 address from its four octets.
    public static func ipv4(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8, port: UInt16) -> TransportAddress {
        TransportAddress(checked: [a, b, c, d], port: port)
    }

    /// For callers that have checked the count.
    init(checked address: [UInt8], port: UInt16) {
        self.address = address
        self.port = port
    }

    public var family: Family { address.count == 4 ? .ipv4 : .ipv6 }

    /// "192.0.2.1:32853" or "[2001:db8:0:0:0:0:0:1]:32853" (IPv6 groups written out, not shortened).
    public var description: String {
        if family == .ipv4 { return address.map(String.init).joined(separator: ".") + ":\(port)" }
        let groups = stride(from: 0, to: 16, by: 2).map { String(UInt16(address[$0]) << 8 | UInt16(address[$0 + 1]), radix: 16) }
        return "[" + groups.joined(separator: ":") + "]:\(port)"
    }
}
