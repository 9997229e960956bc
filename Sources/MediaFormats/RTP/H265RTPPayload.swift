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
            self = .aggregation(try H265Depacketizer.sizePrefixedNALUnits(bytes.dropFirst(HEVCNALUnitHeader.size),
                                                                          structure: "H.265 aggregation packet"))
        case Self.fragmentationUnit:
            self = .fragment(try H265FragmentationUnit(parsing: bytes))
        default:
            self = .ignored(type: type)
        }
    }
}

extension H265RTPPayload: RTPVideoPayload {
    public static let structure = "H.265 RTP payload"
    public static let fragmentStructure = "H.265 fragmentation unit"

    public static func isKeyframe(firstByte: UInt8) -> Bool {
        HEVCNALUnitHeader.type(ofFirstByte: firstByte).isIRAP
    }

    public var content: RTPVideoPayloadContent {
        switch self {
        case let .single(nalUnit): .nalUnits([nalUnit])
        case let .aggregation(nalUnits): .nalUnits(nalUnits)
        case let .fragment(unit): .fragment(header: unit.nalUnitHeader, data: unit.data, isStart: unit.isStart, isEnd: unit.isEnd)
        case .ignored: .nothing
        }
    }
}
