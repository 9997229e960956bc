// RFC 3550 §5.1 (sequence numbers and timestamps), RFC 6184 §5.1 / RFC 7798 §4.1 (the marker ends an access unit).

/// What the H.264 and H.265 depacketizers share: gathering NAL units into access units by RTP timestamp and marker,
/// reassembling one fragmented NAL unit, and deciding which access unit a lost or malformed packet damaged. The
/// depacketizers only read their payload formats and feed it.
struct RTPAccessUnitAssembler: Sendable {
    /// The largest access unit kept (a 4K intra picture is a few MiB); beyond it the access unit is dropped.
    static let maxAccessUnitSize = 16 << 20

    private var sequence = RTPSequenceTracker()
    /// The access unit in progress: its timestamp, NAL units and size.
    private var timestamp: UInt32?
    private var nalUnits: [[UInt8]] = []
    private var size = 0
    private var containsKeyframe = false
    /// The first damage to the access unit in progress; it is dropped when it ends.
    private var damage: RTPDropReason?
    /// The fragmented NAL unit in progress; nil between fragments.
    private var fragment: [UInt8]?
    private var fragmentIsKeyframe = false
    private(set) var awaitingKeyframe = false
    /// Packets lost where no access unit was in progress, found at a padding-only packet: they may have started the next
    /// access unit, which is damaged when it begins.
    private var lossBeforeNext: RTPDropReason?

    /// Takes `packet`'s place in the sequence before its payload is read. False for a duplicate or a packet shortly
    /// older than the last (not reordered here: the caller feeds packets in sequence order), which must be ignored.
    mutating func begin(_ packet: RTPPacket, into outputs: inout [RTPVideoDepacketizerOutput]) -> Bool {
        var nextDamage: RTPDropReason?
        guard let loss = sequence.admitting(packet.sequenceNumber) else { return false }
        if let loss {
            // The lost packets may end the access unit in progress, start the next one, or both.
            if timestamp != nil { damageCurrent(loss) }
            if timestamp != packet.timestamp { nextDamage = loss }
        }
        if let current = timestamp, current != packet.timestamp {
            finish(endedByMarker: false, into: &outputs)
        }
        if timestamp == nil {
            timestamp = packet.timestamp
            damage = nextDamage ?? lossBeforeNext
        }
        lossBeforeNext = nil
        return true
    }

    /// A packet of padding only (RFC 3550 §5.1; a sender probing the bandwidth, without rtx, sends them on the media
    /// SSRC after a frame's last packet): it takes its place in the sequence, so it is no loss, and belongs to no access
    /// unit. Packets lost before it damage the access unit in progress and the next one.
    mutating func skip(_ packet: RTPPacket) {
        guard case let .some(.some(loss)) = sequence.admitting(packet.sequenceNumber) else { return }
        if timestamp != nil { damageCurrent(loss) }
        lossBeforeNext = loss
    }

    /// Ends the packet begun: a marked packet ends its access unit.
    mutating func end(_ packet: RTPPacket, into outputs: inout [RTPVideoDepacketizerOutput]) {
        if packet.marker { finish(endedByMarker: true, into: &outputs) }
    }

    /// A whole NAL unit of the access unit in progress.
    mutating func append(_ nalUnit: [UInt8], isKeyframe: Bool) {
        if fragment != nil { abandonFragment() }
        guard damage == nil else { return }
        guard grow(by: nalUnit.count) else { return }
        nalUnits.append(nalUnit)
        if isKeyframe { containsKeyframe = true }
    }

    /// The first fragment of a NAL unit whose reconstructed header is `header`.
    mutating func startFragment(header: [UInt8], data: ArraySlice<UInt8>, isKeyframe: Bool) {
        if fragment != nil { abandonFragment() }
        guard damage == nil, grow(by: header.count + data.count) else { return }
        fragment = header + data
        fragmentIsKeyframe = isKeyframe
    }

    /// A later fragment; `isLast` completes the NAL unit. A fragment without a start damages the access unit.
    mutating func continueFragment(_ data: ArraySlice<UInt8>, isLast: Bool, structure: String) {
        guard fragment != nil else {
            damageCurrent(.malformed(.invalid(structure: structure, reason: "a fragment without its start")))
            return
        }
        guard damage == nil, grow(by: data.count) else { return }
        fragment?.append(contentsOf: data)
        if isLast, let nalUnit = fragment {
            fragment = nil
            nalUnits.append(nalUnit)
            if fragmentIsKeyframe { containsKeyframe = true }
        }
    }

    /// A payload that could not be read damages its access unit.
    mutating func damageCurrent(_ reason: RTPDropReason) {
        if damage == nil { damage = reason }
        fragment = nil
    }

    mutating func reset() { self = RTPAccessUnitAssembler() }

    private mutating func abandonFragment() {
        damageCurrent(.malformed(.invalid(structure: "fragmentation unit", reason: "a fragmented NAL unit without its end")))
    }

    /// Counts `count` more bytes against the limit; false (and the access unit damaged) beyond it.
    private mutating func grow(by count: Int) -> Bool {
        size += count
        guard size <= Self.maxAccessUnitSize else {
            damageCurrent(.malformed(.limitExceeded(what: "access unit size", value: size, limit: Self.maxAccessUnitSize)))
            return false
        }
        return true
    }

    private mutating func finish(endedByMarker: Bool, into outputs: inout [RTPVideoDepacketizerOutput]) {
        guard let timestamp else { return }
        if fragment != nil { abandonFragment() }
        if let damage {
            outputs.append(.dropped(rtpTimestamp: timestamp, reason: damage))
            awaitingKeyframe = true
        } else if !nalUnits.isEmpty {
            outputs.append(.accessUnit(RTPVideoAccessUnit(nalUnits: nalUnits, rtpTimestamp: timestamp,
                                                          isKeyframe: containsKeyframe, endedByMarker: endedByMarker)))
            if containsKeyframe { awaitingKeyframe = false }
        }
        self.timestamp = nil
        nalUnits = []
        size = 0
        containsKeyframe = false
        self.damage = nil
    }
}
