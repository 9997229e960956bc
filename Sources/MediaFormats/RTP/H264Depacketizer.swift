// RFC 6184 §6.2 (single NAL unit mode), §6.3 (non-interleaved mode), §7.1 (the receiver's de-packetization).

/// Turns the H.264 RTP packets of one SSRC, in sequence order, into access units. Both packetization modes a
/// camera sends (0: single NAL units; 1: also STAP-A and FU-A) are read; a lost or malformed packet drops only the
/// access unit it may belong to and sets `awaitingKeyframe` until an access unit with an IDR slice is delivered.
public struct H264Depacketizer: Sendable {
    private var assembler = RTPAccessUnitAssembler()

    public init() {}

    /// The pictures after a dropped access unit may refer to it: true from a drop until the next IDR is delivered.
    public var awaitingKeyframe: Bool { assembler.awaitingKeyframe }

    /// The access units `packet` completes (usually none or one; two when a lost marker is found by a new timestamp).
    /// A duplicate or a packet up to 100 older than the last one is ignored; one further back restarts the sequence.
    public mutating func depacketize(_ packet: RTPPacket) -> [RTPVideoDepacketizerOutput] {
        var outputs: [RTPVideoDepacketizerOutput] = []
        guard assembler.begin(packet, into: &outputs) else { return outputs }
        do {
            switch try H264RTPPayload(parsing: packet.payload) {
            case let .single(nalUnit):
                assembler.append(Array(nalUnit), isKeyframe: Self.isIDR(nalUnit.first))
            case let .aggregation(nalUnits):
                for nalUnit in nalUnits { assembler.append(Array(nalUnit), isKeyframe: Self.isIDR(nalUnit.first)) }
            case let .fragment(unit):
                if unit.isStart {
                    assembler.startFragment(header: [unit.nalUnitHeader], data: unit.data, isKeyframe: Self.isIDR(unit.nalUnitHeader))
                } else {
                    assembler.continueFragment(unit.data, isLast: unit.isEnd, structure: "FU-A")
                }
            case .ignored:
                break
            }
        } catch let error as MediaFormatError {
            assembler.damageCurrent(.malformed(error))
        } catch {
            assembler.damageCurrent(.malformed(.invalid(structure: "H.264 RTP payload", reason: "\(error)")))
        }
        assembler.end(packet, into: &outputs)
        return outputs
    }

    /// Forgets every packet (a new SSRC, a seek): the next packet starts afresh.
    public mutating func reset() { assembler.reset() }

    private static func isIDR(_ header: UInt8?) -> Bool {
        header.map { NALUnitHeader($0).nalUnitType.isIDR } ?? false
    }
}
