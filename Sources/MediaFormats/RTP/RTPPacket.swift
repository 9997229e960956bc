// RFC 3550 §5.1 RTP fixed header fields, §5.3.1 RTP header extension.

/// One RTP packet: the fixed header, the CSRC list, the header extension and the payload without its padding.
public struct RTPPacket: Sendable, Equatable {
    /// The only version RFC 3550 defines.
    public static let version: UInt8 = 2
    /// The fixed header, before the CSRC list.
    public static let fixedHeaderSize = 12
    /// The CSRC count is a 4-bit field.
    public static let maxCSRCCount = 15

    /// The marker bit: for video, the last packet of an access unit (RFC 6184 §5.1, RFC 7798 §4.1).
    public var marker: Bool
    /// The 7-bit payload type, mapped to a format by the session description's `a=rtpmap`.
    public var payloadType: UInt8
    public var sequenceNumber: UInt16
    /// The sampling instant of the first octet of the payload, in the payload format's clock.
    public var timestamp: UInt32
    public var ssrc: UInt32
    /// The contributing sources (at most 15).
    public var csrcs: [UInt32]
    /// The header extension when the X bit is set.
    public var headerExtension: RTPHeaderExtension?
    /// The payload, padding removed.
    public var payload: ArraySlice<UInt8>
    /// Padding octets after the payload (counting the count octet itself); 0 when the P bit is clear.
    public var paddingSize: Int

    public init(marker: Bool = false, payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32,
                csrcs: [UInt32] = [], headerExtension: RTPHeaderExtension? = nil, payload: ArraySlice<UInt8>, paddingSize: Int = 0) {
        precondition(payloadType < 0x80, "payload type is a 7-bit field")
        precondition(csrcs.count <= Self.maxCSRCCount, "CSRC count is a 4-bit field")
        precondition((0...255).contains(paddingSize), "the padding count is one octet")
        self.marker = marker
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.csrcs = csrcs
        self.headerExtension = headerExtension
        self.payload = payload
        self.paddingSize = paddingSize
    }

    /// The fields a receiver sorts packets by, read from the fixed header without parsing the rest (a reorder buffer's
    /// and a NACK scheduler's key); nil when `bytes` is shorter than the fixed header.
    public static func peek(_ bytes: [UInt8]) -> (payloadType: UInt8, sequenceNumber: UInt16, ssrc: UInt32)? {
        guard bytes.count >= fixedHeaderSize else { return nil }
        // 1 bit marker + 7 bits payload type, 16 bits sequence number, 32 bits timestamp, 32 bits SSRC.
        return (bytes[1] & 0x7F, UInt16(bytes[2]) << 8 | UInt16(bytes[3]), bytes[8 ..< 12].reduce(0) { $0 << 8 | UInt32($1) })
    }

    /// A packet from one datagram (or one interleaved frame). Short input throws `.truncated`; a version other
    /// than 2 or a padding count of 0 or beyond the packet throws `.invalid`.
    public init(parsing bytes: ArraySlice<UInt8>) throws {
        var reader = ByteReader(bytes)
        let first = try reader.readUInt8()
        let second = try reader.readUInt8()
        // First octet: 2 bits version + 1 bit padding + 1 bit extension + 4 bits CSRC count.
        guard first >> 6 == Self.version else {
            throw MediaFormatError.invalid(structure: "RTP header", reason: "version \(first >> 6), expected 2")
        }
        let hasPadding = first & 0x20 != 0
        let hasExtension = first & 0x10 != 0
        let csrcCount = Int(first & 0x0F)
        // Second octet: 1 bit marker + 7 bits payload type.
        marker = second & 0x80 != 0
        payloadType = second & 0x7F
        sequenceNumber = try reader.readUInt16()
        timestamp = try reader.readUInt32()
        ssrc = try reader.readUInt32()
        var csrcs: [UInt32] = []
        csrcs.reserveCapacity(csrcCount)
        for _ in 0..<csrcCount { csrcs.append(try reader.readUInt32()) }
        self.csrcs = csrcs
        headerExtension = hasExtension ? try RTPHeaderExtension(reading: &reader) : nil
        var payload = reader.readRemaining()
        paddingSize = 0
        if hasPadding {
            // The last octet counts the padding octets, itself included (§5.1).
            guard let count = payload.last, count > 0 else {
                throw MediaFormatError.invalid(structure: "RTP header", reason: "padding bit set but the padding count is 0 or absent")
            }
            guard Int(count) <= payload.count else {
                throw MediaFormatError.invalid(structure: "RTP header", reason: "padding of \(count) octets in a \(payload.count)-octet payload")
            }
            paddingSize = Int(count)
            payload = payload.dropLast(Int(count))
        }
        self.payload = payload
    }

    public init(parsing bytes: [UInt8]) throws { try self.init(parsing: bytes[...]) }

    /// The packet as sent: padding octets are zeros ending with their count.
    public func write(into output: inout [UInt8]) {
        let hasPadding = paddingSize > 0
        output.append(Self.version << 6 | (hasPadding ? 0x20 : 0) | (headerExtension != nil ? 0x10 : 0) | UInt8(csrcs.count))
        output.append((marker ? 0x80 : 0) | payloadType)
        output.appendUInt16(sequenceNumber)
        output.appendUInt32(timestamp)
        output.appendUInt32(ssrc)
        for csrc in csrcs { output.appendUInt32(csrc) }
        headerExtension?.write(into: &output)
        output.append(contentsOf: payload)
        if hasPadding {
            output.append(contentsOf: repeatElement(0, count: paddingSize - 1))
            output.append(UInt8(paddingSize))
        }
    }

    /// The packet as sent, in a new array.
    public var serialized: [UInt8] { serialized(reserving: 0) }

    /// The packet as sent, in a new array with room for `extra` bytes more (SRTP's tag, added in place).
    public func serialized(reserving extra: Int) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(Self.fixedHeaderSize + 4 * csrcs.count + (headerExtension.map { 4 + $0.data.count } ?? 0)
                               + payload.count + paddingSize + extra)
        write(into: &output)
        return output
    }
}
