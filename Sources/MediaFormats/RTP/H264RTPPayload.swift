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
            self = .aggregation(try H264Depacketizer.sizePrefixedNALUnits(bytes.dropFirst(), structure: "STAP-A"))
        case Self.fuA:
            self = .fragment(try H264FragmentationUnit(parsing: bytes))
        case 25...27, 29:
            throw MediaFormatError.unsupported(structure: "H.264 RTP payload",
                                               reason: "type \(type) belongs to the interleaved packetization mode")
        default:
            self = .ignored(type: type)
        }
    }
}

extension H264RTPPayload: RTPVideoPayload {
    public static let structure = "H.264 RTP payload"
    public static let fragmentStructure = "FU-A"

    public static func isKeyframe(firstByte: UInt8) -> Bool {
        NALUnitHeader(firstByte).nalUnitType.isIDR
    }

    public var content: RTPVideoPayloadContent {
        switch self {
        case let .single(nalUnit): .nalUnits([nalUnit])
        case let .aggregation(nalUnits): .nalUnits(nalUnits)
        case let .fragment(unit): .fragment(header: [unit.nalUnitHeader], data: unit.data, isStart: unit.isStart, isEnd: unit.isEnd)
        case .ignored: .nothing
        }
    }
}
