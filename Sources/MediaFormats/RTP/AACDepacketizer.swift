// RFC 3640 §3.2 (the mpeg4-generic payload), §3.2.3.1 (fragmented access units), §3.3.6 (AAC-hbr).

/// A raw AAC frame (no ADTS header) and its RTP timestamp, in the sampling-rate clock.
public struct AACFrame: Sendable, Equatable {
    public var bytes: [UInt8]
    public var rtpTimestamp: UInt32

    public init(bytes: [UInt8], rtpTimestamp: UInt32) {
        self.bytes = bytes
        self.rtpTimestamp = rtpTimestamp
    }
}

/// What the AAC depacketizer gives for one packet.
public enum AACDepacketizerOutput: Sendable, Equatable {
    case frame(AACFrame)
    /// A frame (or the frames of a packet) that could not be put together; AAC frames stand alone, so nothing else is lost.
    case dropped(rtpTimestamp: UInt32, reason: RTPDropReason)
}

/// Turns the `mpeg4-generic` AAC packets of one SSRC, in sequence order, into raw AAC frames: several access units
/// per packet, or one access unit in fragments over several packets (the last one marked).
public struct AACDepacketizer: Sendable {
    public let parameters: MPEG4GenericParameters
    private var sequence = RTPSequenceTracker()
    /// The fragmented access unit in progress: its size, timestamp and the octets so far.
    private var fragment: (size: Int, timestamp: UInt32, bytes: [UInt8])?

    public init(parameters: MPEG4GenericParameters) {
        self.parameters = parameters
    }

    /// The frames `packet` completes. Each access unit's timestamp is the packet's plus its AU-Index distance from the
    /// first times the frame length. A duplicate or a packet up to 100 older than the last one is ignored.
    public mutating func depacketize(_ packet: RTPPacket) -> [AACDepacketizerOutput] {
        var outputs: [AACDepacketizerOutput] = []
        guard let loss = sequence.admitting(packet.sequenceNumber) else { return [] }
        if let loss, let lost = fragment {
            outputs.append(.dropped(rtpTimestamp: lost.timestamp, reason: loss))
            fragment = nil
        }
        if let unfinished = fragment, unfinished.timestamp != packet.timestamp {
            outputs.append(.dropped(rtpTimestamp: unfinished.timestamp,
                                    reason: .malformed(.invalid(structure: "mpeg4-generic payload", reason: "a fragmented AU without its end"))))
            fragment = nil
        }
        do {
            let section = try AUHeaderSection(parsing: packet.payload, parameters: parameters)
            if fragment != nil || (section.headers.count == 1 && section.headers[0].size > section.data.count) {
                try continueFragment(section, packet: packet, into: &outputs)
            } else {
                try split(section, packet: packet, into: &outputs)
            }
        } catch {
            let reason = RTPDropReason.malformed(error as? MediaFormatError
                                                 ?? .invalid(structure: "mpeg4-generic payload", reason: "\(error)"))
            outputs.append(.dropped(rtpTimestamp: fragment?.timestamp ?? packet.timestamp, reason: reason))
            fragment = nil
        }
        return outputs
    }

    /// Forgets every packet (a new SSRC, a seek).
    public mutating func reset() {
        sequence = RTPSequenceTracker()
        fragment = nil
    }

    /// The whole access units of one packet; none when their sizes overrun the data, which makes every size suspect.
    private func split(_ section: AUHeaderSection, packet: RTPPacket, into outputs: inout [AACDepacketizerOutput]) throws {
        var reader = ByteReader(section.data)
        var frames: [AACDepacketizerOutput] = []
        var index = 0
        for (position, header) in section.headers.enumerated() {
            // AU-Index-delta counts the access units skipped after the previous one (0 when consecutive).
            if position > 0 { index += header.index + 1 }
            let bytes = try reader.readBytes(header.size)
            let timestamp = packet.timestamp &+ UInt32(truncatingIfNeeded: index * parameters.samplesPerFrame)
            frames.append(.frame(AACFrame(bytes: Array(bytes), rtpTimestamp: timestamp)))
        }
        outputs += frames
    }

    /// One packet of a fragmented access unit: a single AU header giving the whole size, a part of the data.
    private mutating func continueFragment(_ section: AUHeaderSection, packet: RTPPacket, into outputs: inout [AACDepacketizerOutput]) throws {
        guard section.headers.count == 1 else {
            throw MediaFormatError.invalid(structure: "mpeg4-generic payload", reason: "\(section.headers.count) AU headers in a fragment")
        }
        let size = section.headers[0].size
        var current = fragment ?? (size: size, timestamp: packet.timestamp, bytes: [])
        guard current.size == size else {
            throw MediaFormatError.invalid(structure: "mpeg4-generic payload", reason: "AU size \(size) in a fragment of an AU of \(current.size)")
        }
        guard current.bytes.count + section.data.count <= size else {
            throw MediaFormatError.invalid(structure: "mpeg4-generic payload",
                                           reason: "fragments of \(current.bytes.count + section.data.count) octets for an AU of \(size)")
        }
        current.bytes += section.data
        if current.bytes.count == size {
            outputs.append(.frame(AACFrame(bytes: current.bytes, rtpTimestamp: current.timestamp)))
            fragment = nil
        } else if packet.marker {
            throw MediaFormatError.truncated(needed: size, available: current.bytes.count)
        } else {
            fragment = current
        }
    }
}
