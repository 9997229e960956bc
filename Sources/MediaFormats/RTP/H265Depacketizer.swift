// RFC 7798 §4.4 (payload structures, no DONL: sprop-max-don-diff 0), §6 (the receiver's de-packetization).

/// Turns the H.265 RTP packets of one SSRC, in sequence order, into access units: single NAL unit packets,
/// aggregation packets and fragmentation units. A lost or malformed packet drops only the access unit it may belong
/// to and sets `awaitingKeyframe` until an access unit with an IRAP picture is delivered.
public struct H265Depacketizer: Sendable {
    private var assembler = RTPAccessUnitAssembler()

    public init() {}

    /// True from a drop until the next IRAP access unit is delivered.
    public var awaitingKeyframe: Bool { assembler.awaitingKeyframe }

    /// The access units `packet` completes. A duplicate or a packet up to 100 older than the last one is ignored;
    /// one further back restarts the sequence.
    public mutating func depacketize(_ packet: RTPPacket) -> [RTPVideoDepacketizerOutput] {
        var outputs: [RTPVideoDepacketizerOutput] = []
        guard assembler.begin(packet, into: &outputs) else { return outputs }
        do {
            switch try H265RTPPayload(parsing: packet.payload) {
            case let .single(nalUnit):
                assembler.append(Array(nalUnit), isKeyframe: Self.isIRAP(nalUnit.first))
            case let .aggregation(nalUnits):
                for nalUnit in nalUnits { assembler.append(Array(nalUnit), isKeyframe: Self.isIRAP(nalUnit.first)) }
            case let .fragment(unit):
                if unit.isStart {
                    assembler.startFragment(header: unit.nalUnitHeader, data: unit.data, isKeyframe: unit.nalUnitType.isIRAP)
                } else {
                    assembler.continueFragment(unit.data, isLast: unit.isEnd, structure: "H.265 fragmentation unit")
                }
            case .ignored:
                break
            }
        } catch let error as MediaFormatError {
            assembler.damageCurrent(.malformed(error))
        } catch {
            assembler.damageCurrent(.malformed(.invalid(structure: "H.265 RTP payload", reason: "\(error)")))
        }
        assembler.end(packet, into: &outputs)
        return outputs
    }

    /// Forgets every packet (a new SSRC, a seek).
    public mutating func reset() { assembler.reset() }

    private static func isIRAP(_ firstByte: UInt8?) -> Bool {
        firstByte.map { HEVCNALUnitHeader.type(ofFirstByte: $0).isIRAP } ?? false
    }
}
