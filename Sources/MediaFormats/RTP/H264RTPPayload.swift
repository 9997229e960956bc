// RFC 6184 §5.2 RTP payload structures (Table 1, packetization modes 0 and 1), §5.6 single NAL unit packet,
// §5.7.1 STAP-A.

/// The payload of one H.264 RTP packet, told apart by the type field of its first octet.
public enum H264RTPPayload: Sendable, Equatable {
    /// Types 1...23: one whole NAL unit, header included.
    case single(ArraySlice<UInt8>)
    /// Type 24 (STAP-A): whole NAL units of one access unit, each after a 16-bit size.
    case aggregation([ArraySlice<UInt8>])
    /// Type 28 (FU-A): a fragment of one NAL unit.
    case fragment(H264FragmentationUnit)
    /// Types 0, 30 and 31, which a receiver ignores (§5.2).
    case ignored(type: UInt8)

    /// STAP-A.
    static let stapA: UInt8 = 24
    /// FU-A.
    static let fuA: UInt8 = 28

    /// The payload of `bytes`. Empty input, a STAP-A with no NAL unit, a zero or overlong size throw; so do the
    /// interleaved-mode types (STAP-B 25, MTAP16 26, MTAP24 27, FU-B 29), which modes 0 and 1 do not carry.
    public init(parsing bytes: ArraySlice<UInt8>) throws {
        guard let first = bytes.first else { throw MediaFormatError.truncated(needed: 1, available: 0) }
        let type = first & 0x1F
        switch type {
        case 1...23:
            self = .single(bytes)
        case Self.stapA:
            self = .aggregation(try Self.aggregatedNALUnits(bytes.dropFirst()))
        case Self.fuA:
            self = .fragment(try H264FragmentationUnit(parsing: bytes))
        case 25...27, 29:
            throw MediaFormatError.unsupported(structure: "H.264 RTP payload",
                                               reason: "type \(type) belongs to the interleaved packetization mode")
        default:
            self = .ignored(type: type)
        }
    }

    /// The NAL units after a STAP-A header: 16-bit size, then that many octets, to the end.
    private static func aggregatedNALUnits(_ bytes: ArraySlice<UInt8>) throws -> [ArraySlice<UInt8>] {
        var reader = ByteReader(bytes)
        var nalUnits: [ArraySlice<UInt8>] = []
        while !reader.isAtEnd {
            let size = Int(try reader.readUInt16())
            guard size > 0 else { throw MediaFormatError.invalid(structure: "STAP-A", reason: "a NAL unit size of 0") }
            nalUnits.append(try reader.readBytes(size))
        }
        guard !nalUnits.isEmpty else { throw MediaFormatError.invalid(structure: "STAP-A", reason: "no NAL unit") }
        return nalUnits
    }
}
