// RFC 8839 §5.1 the candidate attribute: <foundation> <component-id> <transport> <priority> <address> <port> typ <type> [...].

/// One ICE candidate. Descriptions keep the peer's `a=candidate` lines as text (an ICE-lite agent never uses them and
/// must not refuse an offer over one); this type reads one when wanted and builds the worker's own.
public struct ICECandidate: Sendable, Equatable {
    /// RFC 8445 §5.1.2.1: the type preference of a host candidate.
    public static let hostTypePreference: UInt32 = 126

    public var foundation: String
    /// 1 for RTP (RTCP shares it under rtcp-mux).
    public var component: Int
    /// "udp" (RFC 8839 §5.1 writes it in either case).
    public var transport: String
    public var priority: UInt32
    public var address: String
    public var port: Int
    /// "host", "srflx", "prflx", "relay".
    public var type: String
    /// What follows the type ("raddr 10.0.0.1 rport 9 generation 0"), split at spaces.
    public var extensions: [String]

    public init(foundation: String, component: Int = 1, transport: String = "udp", priority: UInt32, address: String, port: Int,
                type: String = "host", extensions: [String] = []) {
        self.foundation = foundation
        self.component = component
        self.transport = transport
        self.priority = priority
        self.address = address
        self.port = port
        self.type = type
        self.extensions = extensions
    }

    /// A host candidate for component 1; `rank` 0 is the most preferred of the worker's addresses.
    public static func host(address: String, port: Int, rank: Int) -> ICECandidate {
        // RFC 8445 §5.1.2.1: priority = 2^24 type preference + 2^8 local preference + (256 - component).
        let localPreference = UInt32(65535 - min(max(rank, 0), 65535))
        return ICECandidate(foundation: String(rank + 1), priority: Self.hostTypePreference << 24 | localPreference << 8 | 255,
                            address: address, port: port)
    }

    /// Reads what follows "a=candidate:".
    public init(parsing value: String) throws {
        let fields = value.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 8, fields[6] == "typ" else {
            throw MediaFormatError.invalid(structure: "ICE candidate", reason: "\"\(value)\" is not <foundation> <component> <transport> <priority> <address> <port> typ <type>")
        }
        guard let component = Int(fields[1]), (1...256).contains(component), let priority = UInt32(fields[3]),
              let port = Int(fields[5]), (0...65535).contains(port) else {
            throw MediaFormatError.invalid(structure: "ICE candidate", reason: "\"\(value)\": component, priority or port out of range")
        }
        self.init(foundation: String(fields[0]), component: component, transport: String(fields[2]), priority: priority,
                  address: String(fields[4]), port: port, type: String(fields[7]), extensions: fields.dropFirst(8).map(String.init))
    }

    /// What follows "a=candidate:".
    public var value: String {
        ([foundation, String(component), transport, String(priority), address, String(port), "typ", type] + extensions).joined(separator: " ")
    }
}
