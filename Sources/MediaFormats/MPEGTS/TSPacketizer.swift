// ISO/IEC 13818-1 (2019) §2.4.3.3: continuity_counter increments per PID on packets with payload only (not on
// adaptation-field-only packets); §2.4.3.5: PES packets are padded with adaptation-field stuffing, PSI sections with
// 0xFF after the last section (§2.4.4.1).

/// Cuts payload units (a PES packet, or a pointer_field and PSI section) into 188-byte packets, keeping each PID's
/// continuity counter.
struct TSPacketizer: Sendable {
    /// How the last packet of a unit is filled.
    enum Stuffing {
        /// Adaptation field stuffing before the payload (PES).
        case adaptationField
        /// Adaptation field stuffing, and never a full last packet: a PES without a PES_packet_length (video) is
        /// known whole at the end of a stream only by a short last packet (`PESAssembler.finishAtEnd`), so one that
        /// would fill its last packet exactly gives one byte to an adaptation field and ends in one packet more.
        case adaptationFieldMarkingEnd
        /// 0xFF bytes after the payload (PSI).
        case trailingFill
    }

    /// The payload bytes a packet holds after its 4-byte header.
    static let packetPayloadSize = TSPacketHeader.packetSize - TSPacketHeader.size

    /// The last continuity_counter written on each PID.
    private var lastCounters: [UInt16: UInt8] = [:]

    /// The counter for the next payload-carrying packet on `pid` (0 first).
    private mutating func nextCounter(for pid: UInt16) -> UInt8 {
        let next = lastCounters[pid].map { ($0 + 1) % TSPacketHeader.continuityCounterModulus } ?? 0
        lastCounters[pid] = next
        return next
    }

    /// Appends `unit` as packets on `pid`: the first with payload_unit_start_indicator and `adaptationField` (when
    /// given), the last filled by `stuffing`. An empty unit writes nothing.
    mutating func write(_ unit: [UInt8], pid: UInt16, adaptationField: TSAdaptationField?, stuffing: Stuffing,
                        into out: inout [UInt8]) {
        var offset = 0
        var first = true
        while offset < unit.count {
            let remaining = unit.count - offset
            var field = first ? adaptationField : nil
            var fieldLength = field?.minimumEncodedLength ?? 0
            var fill = 0
            if stuffing == .adaptationFieldMarkingEnd, field == nil, remaining == Self.packetPayloadSize {
                field = TSAdaptationField()
                fieldLength = 1
            }
            if remaining < Self.packetPayloadSize - fieldLength {
                let spare = Self.packetPayloadSize - fieldLength - remaining
                switch stuffing {
                case .adaptationField, .adaptationFieldMarkingEnd:
                    if field == nil { field = TSAdaptationField() }
                    fieldLength += spare
                case .trailingFill:
                    fill = spare
                }
            }
            let chunk = min(remaining, Self.packetPayloadSize - fieldLength)
            TSPacketHeader(
                pid: pid, payloadUnitStartIndicator: first,
                adaptationFieldControl: field == nil ? .payloadOnly : .adaptationFieldAndPayload,
                continuityCounter: nextCounter(for: pid)
            ).write(into: &out)
            field?.write(encodedLength: fieldLength, into: &out)
            out += unit[offset..<(offset + chunk)]
            out.append(contentsOf: repeatElement(TSAdaptationField.stuffingByte, count: fill))
            offset += chunk
            first = false
        }
    }

    /// Appends one packet holding only `adaptationField` (a PCR between PES packets); its counter does not advance.
    mutating func writeAdaptationFieldOnly(_ adaptationField: TSAdaptationField, pid: UInt16, into out: inout [UInt8]) {
        TSPacketHeader(pid: pid, adaptationFieldControl: .adaptationFieldOnly, continuityCounter: lastCounters[pid] ?? 0)
            .write(into: &out)
        adaptationField.write(encodedLength: Self.packetPayloadSize, into: &out)
    }

    /// Appends a PSI section on `pid` after a pointer_field of 0, padded with 0xFF.
    mutating func write(section: PSISection, pid: UInt16, into out: inout [UInt8]) throws {
        var unit: [UInt8] = [0]  // pointer_field: the section starts right after it
        try section.write(into: &unit)
        write(unit, pid: pid, adaptationField: nil, stuffing: .trailingFill, into: &out)
    }
}
