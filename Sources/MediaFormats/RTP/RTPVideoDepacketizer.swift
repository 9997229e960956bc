// RFC 6184 §7.1 and RFC 7798 §6 (the receiver's de-packetization): the same steps for H.264 and H.265, over payload
// formats that differ only in how a packet is laid out.

/// One video RTP payload format, as the depacketizer reads it: a packet holds whole NAL units or a fragment of one.
public protocol RTPVideoPayload: Sendable {
    /// The payload's name in a drop's reason ("H.264 RTP payload").
    static var structure: String { get }
    /// The name of a fragmentation unit in a drop's reason ("FU-A").
    static var fragmentStructure: String { get }
    /// Whether the NAL unit whose header starts with `firstByte` codes a random access picture (an IDR or IRAP slice).
    static func isKeyframe(firstByte: UInt8) -> Bool
    init(parsing bytes: ArraySlice<UInt8>) throws
    /// What the packet holds.
    var content: RTPVideoPayloadContent { get }
}

/// What one video RTP packet holds, whatever its payload format.
public enum RTPVideoPayloadContent: Sendable, Equatable {
    /// Whole NAL units, headers included (a single NAL unit packet, or an aggregation packet's units).
    case nalUnits([ArraySlice<UInt8>])
    /// A fragment of one NAL unit; the first carries the NAL unit's reconstructed header.
    case fragment(header: [UInt8], data: ArraySlice<UInt8>, isStart: Bool, isEnd: Bool)
    /// A packet type a receiver ignores.
    case nothing
    /// Units and fragments of units in one packet (AV1's OBU elements): the end or middle of a unit the last packet
    /// began (`continuedEnds` false: the middle), whole units, then the start of one the next packet goes on with.
    case elements(continued: ArraySlice<UInt8>?, continuedEnds: Bool, whole: [ArraySlice<UInt8>], started: ArraySlice<UInt8>?)
    /// A piece of a frame whose end only the marker says (VP8): kept as a unit of its own, the edge joins them.
    case piece(ArraySlice<UInt8>, startsFrame: Bool, isKeyframe: Bool)
}

/// Turns the video RTP packets of one SSRC, in sequence order, into access units (`H264Depacketizer`,
/// `H265Depacketizer`, `AV1Depacketizer`, whose units are OBUs). A lost or malformed packet drops only the access unit
/// it may belong to and sets `awaitingKeyframe` until an access unit with a random access picture is delivered.
public struct RTPVideoDepacketizer<Payload: RTPVideoPayload>: Sendable {
    private var assembler = RTPAccessUnitAssembler()

    public init() {}

    /// The pictures after a dropped access unit may refer to it: true from a drop until the next keyframe is delivered.
    public var awaitingKeyframe: Bool { assembler.awaitingKeyframe }

    /// The access units `packet` completes (usually none or one; two when a lost marker is found by a new timestamp).
    /// A packet of padding only completes nothing and damages nothing.
    /// A duplicate or a packet up to 100 older than the last one is ignored; one further back restarts the sequence.
    public mutating func depacketize(_ packet: RTPPacket) -> [RTPVideoDepacketizerOutput] {
        var outputs: [RTPVideoDepacketizerOutput] = []
        if packet.payload.isEmpty && packet.paddingSize > 0 {
            assembler.skip(packet)
            return outputs
        }
        guard assembler.begin(packet, into: &outputs) else { return outputs }
        do {
            switch try Payload(parsing: packet.payload).content {
            case let .nalUnits(nalUnits):
                for nalUnit in nalUnits {
                    assembler.append(Array(nalUnit), isKeyframe: nalUnit.first.map(Payload.isKeyframe) ?? false)
                }
            case let .fragment(header, data, isStart, isEnd):
                if isStart {
                    assembler.startFragment(header: header, data: data, isKeyframe: header.first.map(Payload.isKeyframe) ?? false)
                } else {
                    assembler.continueFragment(data, isLast: isEnd, structure: Payload.fragmentStructure)
                }
            case let .elements(continued, continuedEnds, whole, started):
                if let continued { assembler.continueFragment(continued, isLast: continuedEnds, structure: Payload.fragmentStructure) }
                for unit in whole {
                    assembler.append(Array(unit), isKeyframe: unit.first.map(Payload.isKeyframe) ?? false)
                }
                if let started {
                    assembler.startFragment(header: [], data: started, isKeyframe: started.first.map(Payload.isKeyframe) ?? false)
                }
            case let .piece(piece, _, isKeyframe):
                assembler.append(Array(piece), isKeyframe: isKeyframe)
            case .nothing:
                break
            }
        } catch let error as MediaFormatError {
            assembler.damageCurrent(.malformed(error))
        } catch {
            assembler.damageCurrent(.malformed(.invalid(structure: Payload.structure, reason: "\(error)")))
        }
        assembler.end(packet, into: &outputs)
        return outputs
    }

    /// Forgets every packet (a new SSRC, a seek): the next packet starts afresh.
    public mutating func reset() { assembler.reset() }

    /// The NAL units of an aggregation packet's body (STAP-A, H.265's AP): a 16-bit size, then that many octets, to
    /// the end. A size of 0, a size past the end or no NAL unit at all throw, naming `structure`.
    static func sizePrefixedNALUnits(_ bytes: ArraySlice<UInt8>, structure: String) throws -> [ArraySlice<UInt8>] {
        var reader = ByteReader(bytes)
        var nalUnits: [ArraySlice<UInt8>] = []
        while !reader.isAtEnd {
            let size = Int(try reader.readUInt16())
            guard size > 0 else { throw MediaFormatError.invalid(structure: structure, reason: "a NAL unit size of 0") }
            nalUnits.append(try reader.readBytes(size))
        }
        guard !nalUnits.isEmpty else { throw MediaFormatError.invalid(structure: structure, reason: "no NAL unit") }
        return nalUnits
    }
}

/// H.264 over RTP (RFC 6184): both packetization modes a camera sends (0: single NAL units; 1: also STAP-A and FU-A).
public typealias H264Depacketizer = RTPVideoDepacketizer<H264RTPPayload>
/// H.265 over RTP (RFC 7798, without DONL): single NAL unit packets, aggregation packets and fragmentation units.
public typealias H265Depacketizer = RTPVideoDepacketizer<H265RTPPayload>
