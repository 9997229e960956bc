// ISO/IEC 13818-1 (2019) §2.4.3.6: a PES packet starts in a packet with payload_unit_start_indicator and runs until
// PES_packet_length bytes (or, when that is 0, as video allows, until the next unit start) have come. §2.4.3.5: a PES
// that does not fill its last packet is padded there by adaptation-field stuffing, so only a PES's last packet is short.

/// Reassembles the PES packets of one PID from packet payloads, within a size limit.
struct PESAssembler: Sendable {
    /// A reassembled PES packet: its header, its payload and the flags of the packet that started it.
    struct Packet: Sendable {
        var header: PESPacketHeader
        var payload: ArraySlice<UInt8>
        var randomAccessIndicator: Bool
    }

    /// Largest PES kept.
    let maxSize: Int
    private var buffer: [UInt8] = []
    private var collecting = false
    private var randomAccessIndicator = false
    /// The whole PES size once its header is read and PES_packet_length is not 0.
    private var declaredSize: Int?
    /// The last packet appended carried a whole packet's payload (no stuffing): the PES may go on past it.
    private var lastPacketFull = false
    /// The size of the last PES collected: the next one reserves it at its start instead of growing packet by packet.
    private var lastSize = 0

    init(maxSize: Int) { self.maxSize = maxSize }

    /// Drops a partial PES (lost packets, codec change).
    mutating func reset() {
        buffer = []
        collecting = false
        declaredSize = nil
        lastPacketFull = false
    }

    /// Takes one packet's payload; returns a PES when one completes (or an error for one that could not).
    mutating func append(_ payload: ArraySlice<UInt8>, unitStart: Bool, randomAccessIndicator: Bool,
                         pid: UInt16) -> [Result<Packet, TSDemuxerError>] {
        var results: [Result<Packet, TSDemuxerError>] = []
        if unitStart {
            if collecting, let finished = finish(pid: pid) { results.append(finished) }
            collecting = true
            self.randomAccessIndicator = randomAccessIndicator
        }
        guard collecting else { return results }
        guard buffer.count + payload.count <= maxSize else {
            results.append(.failure(.pesTooLarge(pid: pid, size: buffer.count + payload.count, limit: maxSize)))
            reset()
            return results
        }
        if buffer.isEmpty { buffer.reserveCapacity(Swift.max(payload.count, Swift.min(lastSize, maxSize))) }
        buffer += payload
        lastPacketFull = payload.count == TSPacketHeader.packetSize - TSPacketHeader.size
        if declaredSize == nil, buffer.count >= PESPacketHeader.fixedSize {
            let length = Int(buffer[4]) << 8 | Int(buffer[5])
            if length > 0 { declaredSize = PESPacketHeader.fixedSize + length }
        }
        if let declaredSize, buffer.count >= declaredSize, let finished = finish(pid: pid) { results.append(finished) }
        return results
    }

    /// The end of the stream: the PES collected so far, when it is whole. One with a PES_packet_length is whole when
    /// that many bytes came; one without (video) when its last packet was stuffed, the mark a muxer leaves only on a
    /// PES's last packet. A PES cut at a packet boundary (a publisher that closed before sending its tail) ends in a
    /// full packet, and so does, rarely, a whole one that filled its last packet exactly: both are dropped, as a lost
    /// frame is better than a damaged one.
    mutating func finishAtEnd(pid: UInt16) -> Result<Packet, TSDemuxerError>? {
        guard collecting else { return nil }
        if declaredSize == nil, lastPacketFull {
            defer { reset() }
            return .failure(.unterminatedPES(pid: pid, received: buffer.count))
        }
        return finish(pid: pid)
    }

    /// Completes the PES collected so far (a unit start, or the end of input through `finishAtEnd`): nil when nothing
    /// was collected.
    mutating func finish(pid: UInt16) -> Result<Packet, TSDemuxerError>? {
        guard collecting else { return nil }
        lastSize = buffer.count
        defer { reset() }
        if let declaredSize, buffer.count < declaredSize {
            return .failure(.truncatedPES(pid: pid, declared: declaredSize, received: buffer.count))
        }
        do {
            let header = try PESPacketHeader(parsing: buffer[...])
            guard header.headerLength <= buffer.count else {
                throw MediaFormatError.truncated(needed: header.headerLength, available: buffer.count)
            }
            let end = header.payloadLength.map { header.headerLength + $0 } ?? buffer.count
            return .success(Packet(header: header, payload: buffer[header.headerLength..<end],
                                   randomAccessIndicator: randomAccessIndicator))
        } catch let error as MediaFormatError {
            return .failure(.malformedPES(pid: pid, error))
        } catch {
            return .failure(.malformedPES(pid: pid, .invalid(structure: "PES header", reason: "\(error)")))
        }
    }
}
