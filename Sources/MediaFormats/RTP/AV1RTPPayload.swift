// RTP Payload Format for AV1 (AOMedia, v1.0.0) §4.4 (the aggregation header) and §4.5 (the payload's OBU elements);
// §7.2 (the receiver: OBUs of one temporal unit up to the marker).

/// One AV1 RTP packet as the depacketizer reads it: its OBU elements after the aggregation header. The first element
/// may continue an OBU the previous packet began (Z), the last may be continued by the next (Y); each element is one
/// OBU (or a fragment of one), its length a LEB128 before it unless W says how many elements there are, when the last
/// runs to the end.
public struct AV1RTPPayload: RTPVideoPayload {
    public static let structure = "AV1 RTP payload"
    public static let fragmentStructure = "AV1 OBU fragment"

    /// The OBU header's type (bits 1–4) is a sequence header: the sender puts one before every key frame (§7.3 and
    /// libwebrtc alike), so a temporal unit with one is where a receiver can start. The edge checks the frame itself.
    public static func isKeyframe(firstByte: UInt8) -> Bool { (firstByte >> 3) & 0x0F == AV1OBUType.sequenceHeader.rawValue }

    public let content: RTPVideoPayloadContent
    /// N: the packet is the first of a coded video sequence.
    public let startsSequence: Bool

    public init(parsing bytes: ArraySlice<UInt8>) throws {
        var reader = ByteReader(bytes)
        let header = try reader.readUInt8()
        let continues = header & 0x80 != 0  // Z
        let continued = header & 0x40 != 0  // Y
        let count = Int((header >> 4) & 0x03)  // W
        startsSequence = header & 0x08 != 0  // N
        guard !(startsSequence && continues) else {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "N set on a packet whose first OBU continues the last packet's (Z)")
        }
        var elements: [ArraySlice<UInt8>] = []
        while !reader.isAtEnd {
            if count != 0, elements.count == count - 1 {
                elements.append(reader.readRemaining())
                break
            }
            let length = try LEB128.read(from: &reader)
            guard length > 0, length <= UInt64(reader.remaining) else {
                throw MediaFormatError.invalid(structure: Self.structure, reason: "an OBU element of \(length) octets with \(reader.remaining) left")
            }
            elements.append(try reader.readBytes(Int(length)))
        }
        guard let first = elements.first else {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "no OBU element")
        }
        guard count == 0 || elements.count == count else {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "W says \(count) OBU elements, the packet holds \(elements.count)")
        }
        guard elements.allSatisfy({ !$0.isEmpty }) else {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "an empty OBU element")
        }
        if elements.count == 1 && continues {
            // One element that both continues and is continued is a middle fragment.
            content = .elements(continued: first, continuedEnds: !continued, whole: [], started: nil)
            return
        }
        let whole = elements[(continues ? 1 : 0) ..< (continued ? elements.count - 1 : elements.count)]
        content = .elements(continued: continues ? first : nil, continuedEnds: true, whole: Array(whole),
                            started: continued ? elements.last : nil)
    }
}

/// AV1 over RTP: the OBUs of each temporal unit (as they were sent: temporal delimiters and the size fields the sender
/// left out are the edge's to mend).
public typealias AV1Depacketizer = RTPVideoDepacketizer<AV1RTPPayload>
