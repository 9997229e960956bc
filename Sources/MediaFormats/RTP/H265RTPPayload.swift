// RFC 7798 §4.4.1 single NAL unit packets, §4.4.2 aggregation packets (AP), without DONL (sprop-max-don-diff 0).

/// The payload of one H.265 RTP packet, told apart by the type in its two-octet payload header.
public enum H265RTPPayload: Sendable, Equatable {
    /// Types 0...47: one whole NAL unit, header included.
    case single(ArraySlice<UInt8>)
    /// Type 48 (AP): whole NAL units of one access unit, each after a 16-bit size.
    case aggregation([ArraySlice<UInt8>])
    /// Type 49 (FU): a fragment of one NAL unit.
    case fragment(H265FragmentationUnit)
    /// Type 50 (PACI) and the unspecified 51...63, which a receiver may ignore.
    case ignored(type: UInt8)

    /// Aggregation packet.
    static let aggregationPacket: UInt8 = 48
    /// Fragmentation unit.
    static let fragmentationUnit: UInt8 = 49

    /// The payload of `bytes`. Fewer than two octets, an AP with no NAL unit, a zero or overlong size throw.
    public init(parsing bytes: ArraySlice<UInt8>) throws {
        guard bytes.count >= HEVCNALUnitHeader.size else {
            throw MediaFormatError.truncated(needed: HEVCNALUnitHeader.size, available: bytes.count)
        }
        let type = HEVCNALUnitHeader.type(ofFirstByte: bytes[bytes.startIndex]).rawValue
        switch type {
        case 0...47:
            self = .single(bytes)
        case Self.aggregationPacket:
            var reader = ByteReader(bytes.dropFirst(HEVCNALUnitHeader.size))
            var nalUnits: [ArraySlice<UInt8>] = []
            while !reader.isAtEnd {
                let size = Int(try reader.readUInt16())
                guard size > 0 else { throw MediaFormatError.invalid(structure: "H.265 aggregation packet", reason: "a NAL unit size of 0") }
                nalUnits.append(try reader.readBytes(size))
            }
            guard !nalUnits.isEmpty else { throw MediaFormatError.invalid(structure: "H.265 aggregation packet", reason: "no NAL unit") }
            self = .aggregation(nalUnits)
        case Self.fragmentationUnit:
            self = .fragment(try H265FragmentationUnit(parsing: bytes))
        default:
            self = .ignored(type: type)
        }
    }
}
