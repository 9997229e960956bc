// ISO/IEC 13818-1 (2019) §2.4.4.2 pointer_field: in a packet with payload_unit_start_indicator the first payload byte
// says how many bytes of the previous section come before the next one starts; a section may span packets, several
// may share one, and a table_id of 0xFF starts stuffing to the end of the packet.

/// Reassembles the PSI sections of one PID from packet payloads.
struct PSISectionAssembler: Sendable {
    /// A PAT or PMT section is at most 3 + 1021 bytes.
    static let maxSectionSize = PSISection.headerSize + PSISection.maxSectionLength

    private var buffer: [UInt8] = []
    private var collecting = false

    /// Drops a partial section (after a continuity error).
    mutating func reset() {
        buffer = []
        collecting = false
    }

    /// Takes one packet's payload; returns the sections it completed, or the errors of malformed ones.
    mutating func append(_ payload: ArraySlice<UInt8>, unitStart: Bool) -> [Result<PSISection, MediaFormatError>] {
        var results: [Result<PSISection, MediaFormatError>] = []
        if unitStart {
            guard let pointer = payload.first, payload.count > Int(pointer) else {
                reset()
                return [.failure(.invalid(structure: "PSI pointer_field", reason: "points past the packet"))]
            }
            let rest = payload.dropFirst()
            if collecting {
                buffer += rest.prefix(Int(pointer))
                completeSections(into: &results)
            }
            buffer = Array(rest.dropFirst(Int(pointer)))
            collecting = true
        } else if collecting {
            buffer += payload
        }
        completeSections(into: &results)
        return results
    }

    private mutating func completeSections(into results: inout [Result<PSISection, MediaFormatError>]) {
        while collecting {
            guard let tableID = buffer.first, tableID != PSISection.stuffingTableID else {
                if !buffer.isEmpty { reset() }
                return
            }
            guard let total = PSISection.totalLength(of: buffer[...]) else { return }
            guard total <= Self.maxSectionSize else {
                results.append(.failure(.limitExceeded(what: "PSI section size", value: total, limit: Self.maxSectionSize)))
                reset()
                return
            }
            guard buffer.count >= total else { return }
            do {
                results.append(.success(try PSISection(parsing: buffer[..<total])))
            } catch let error as MediaFormatError {
                results.append(.failure(error))
            } catch {
                results.append(.failure(.invalid(structure: "PSI section", reason: "\(error)")))
            }
            buffer.removeFirst(total)
            if buffer.isEmpty { collecting = false }
        }
    }
}
