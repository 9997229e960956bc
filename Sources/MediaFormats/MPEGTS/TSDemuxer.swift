// ISO/IEC 13818-1 (2019) §2.4: a transport stream read incrementally: packets (§2.4.3.2), the PAT on PID 0 naming
// each program's PMT PID (§2.4.4.3), PMTs naming elementary streams (§2.4.4.9), PES packets reassembled per PID
// (§2.4.3.6), continuity counters checked per PID (§2.4.3.3: one duplicate packet is allowed, a gap means loss).

/// Reads a transport stream fed in pieces of any size and returns what it found as events. No I/O, no clock; bytes
/// fed one at a time give the same events as the same bytes fed at once. Damage is reported and survived: garbage is
/// skipped to the next packet in sync, a continuity gap drops the partial PES or section, a bad CRC ignores a table.
public struct TSDemuxer: Sendable {
    /// The default largest PES kept (8 MiB, well past any access unit of a live stream).
    public static let defaultMaxPESSize = 8 << 20

    /// Errors recovered from, by kind.
    public struct Statistics: Sendable, Equatable {
        /// Packets read in sync.
        public var packets = 0
        /// Bytes skipped while looking for sync, and a partial packet at the end.
        public var bytesSkipped = 0
        public var continuityErrors = 0
        public var duplicatePackets = 0
        public var pesTooLarge = 0
        public var truncatedPES = 0
        public var unterminatedPES = 0
        public var malformedPES = 0
        public var malformedSections = 0
        public var malformedPackets = 0
        public var transportErrors = 0
    }

    /// State of one elementary stream's PID.
    private struct Stream: Sendable {
        var codec: TSStreamCodec
        var programNumber: UInt16
        var assembler: PESAssembler

        /// One packet's payload into the PES being collected, with the stream's codec. Called in place on the
        /// dictionary's entry: a copy of the stream taken out would share the PES buffer, and the append would then
        /// copy all of it for every packet.
        mutating func append(_ payload: ArraySlice<UInt8>, unitStart: Bool, randomAccessIndicator: Bool,
                             pid: UInt16) -> (TSStreamCodec, [Result<PESAssembler.Packet, TSDemuxerError>]) {
            (codec, assembler.append(payload, unitStart: unitStart, randomAccessIndicator: randomAccessIndicator, pid: pid))
        }
    }

    /// The largest PES kept; larger ones are dropped with `.pesTooLarge`.
    public let maxPESSize: Int
    /// Errors so far.
    public private(set) var statistics = Statistics()
    /// The current PMT of each program, by program_number.
    public private(set) var programs: [UInt16: ProgramMapTable] = [:]

    private var synchronizer = TSPacketSynchronizer()
    private var pmtPIDs: [UInt16: UInt16] = [:]  // PMT PID → program_number
    private var sectionAssemblers: [UInt16: PSISectionAssembler] = [TSPacketHeader.patPID: PSISectionAssembler()]
    private var streams: [UInt16: Stream] = [:]
    /// The last continuity counter of each PID (13 bits: a table, not a hash, read twice a packet), or `noCounter`.
    private var lastCounters = [UInt8](repeating: TSDemuxer.noCounter, count: 1 << 13)
    /// No packet counted on the PID yet (counters are 4 bits).
    private static let noCounter: UInt8 = 0xFF
    /// A PID's place in `lastCounters` (a PID has 13 bits).
    private static func counterSlot(_ pid: UInt16) -> Int { Int(pid & 0x1FFF) }
    private var lastPAT: ProgramAssociationTable?
    /// Garbage skipped since the last packet: reported as one run when the next packet (or the end) comes.
    private var pendingSkipped = 0
    /// Bytes skipped in the run still going on (a stream of garbage that never syncs): not yet in `statistics`.
    public var bytesSkippedPending: Int { pendingSkipped }

    /// A demuxer keeping PES packets up to `maxPESSize` bytes.
    public init(maxPESSize: Int = defaultMaxPESSize) { self.maxPESSize = maxPESSize }

    /// Reads `bytes` (any amount, any alignment) and returns the events of the packets they completed.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [TSDemuxerEvent] {
        synchronizer.append(bytes)
        return drain(atEnd: false)
    }

    /// The end of the stream: reads a last unconfirmed packet, delivers the last PES of every stream when it is whole
    /// (`PESAssembler.finishAtEnd`), drops a partial one and reports what was left over. The demuxer can be fed again
    /// after (a new stream's bytes).
    public mutating func flush() -> [TSDemuxerEvent] {
        var events = drain(atEnd: true)
        pendingSkipped += synchronizer.discardRemainder()
        if pendingSkipped > 0 { report(.bytesSkipped(count: pendingSkipped), into: &events) }
        pendingSkipped = 0
        for pid in streams.keys.sorted() {
            guard let codec = streams[pid]?.codec, let result = streams[pid]?.assembler.finishAtEnd(pid: pid) else { continue }
            deliver(result, pid: pid, codec: codec, into: &events)
        }
        return events
    }

    private mutating func drain(atEnd: Bool) -> [TSDemuxerEvent] {
        var events: [TSDemuxerEvent] = []
        while true {
            guard let packet = synchronizer.nextPacket(atEnd: atEnd, skipped: &pendingSkipped) else { return events }
            if pendingSkipped > 0 { report(.bytesSkipped(count: pendingSkipped), into: &events) }
            pendingSkipped = 0
            read(packet, into: &events)
        }
    }

    private mutating func read(_ packet: ArraySlice<UInt8>, into events: inout [TSDemuxerEvent]) {
        statistics.packets += 1
        guard let header = try? TSPacketHeader(parsing: packet) else { return }
        let pid = header.pid
        guard !header.transportErrorIndicator else { return report(.transportError(pid: pid), into: &events) }
        let control = header.adaptationFieldControl
        guard control != .reserved, pid != TSPacketHeader.nullPID else { return }
        var offset = packet.startIndex + TSPacketHeader.size
        var field = TSAdaptationField()
        if control.hasAdaptationField {
            do {
                let (parsed, length) = try TSAdaptationField.parse(packet[offset...])
                field = parsed
                offset += length
            } catch let error as MediaFormatError {
                return report(.malformedPacket(pid: pid, error), into: &events)
            } catch {
                return
            }
            if field.discontinuityIndicator { events.append(.discontinuity(pid: pid)) }
            if let pcr = field.pcr, programs.values.contains(where: { $0.pcrPID == pid }) { events.append(.pcr(pid: pid, pcr)) }
        }
        // Every PSI PID (the PAT's and each PMT's) has a section assembler; every elementary stream's PID a stream.
        guard control.hasPayload else { return }
        let isSection = sectionAssemblers[pid] != nil
        guard isSection || streams[pid] != nil else { return }
        let slot = Self.counterSlot(pid)
        // §2.4.3.3: the counter advances on payload packets only; a discontinuity_indicator allows any value.
        let last = lastCounters[slot]
        if last != Self.noCounter, !field.discontinuityIndicator {
            if header.continuityCounter == last {
                statistics.duplicatePackets += 1
                return
            }
            let expected = (last + 1) % TSPacketHeader.continuityCounterModulus
            if header.continuityCounter != expected {
                report(.continuityError(pid: pid, expected: expected, found: header.continuityCounter), into: &events)
                sectionAssemblers[pid]?.reset()
                streams[pid]?.assembler.reset()
            }
        }
        lastCounters[slot] = header.continuityCounter
        let payload = packet[offset...]
        if isSection {
            readSections(payload, unitStart: header.payloadUnitStartIndicator, pid: pid, into: &events)
        } else if case let (codec, results)? = streams[pid]?.append(
            payload, unitStart: header.payloadUnitStartIndicator, randomAccessIndicator: field.randomAccessIndicator, pid: pid) {
            for result in results { deliver(result, pid: pid, codec: codec, into: &events) }
        }
    }

    private mutating func readSections(_ payload: ArraySlice<UInt8>, unitStart: Bool, pid: UInt16,
                                       into events: inout [TSDemuxerEvent]) {
        guard let results = sectionAssemblers[pid]?.append(payload, unitStart: unitStart) else { return }
        for result in results {
            do {
                let section = try result.get()
                guard section.currentNext else { continue }
                if pid == TSPacketHeader.patPID {
                    guard section.tableID == ProgramAssociationTable.tableID else { continue }
                    apply(try ProgramAssociationTable(section: section), into: &events)
                } else if let number = pmtPIDs[pid], section.tableID == ProgramMapTable.tableID, section.tableIDExtension == number {
                    apply(try ProgramMapTable(section: section), into: &events)
                }
            } catch let error as MediaFormatError {
                report(.malformedSection(pid: pid, error), into: &events)
            } catch {}
        }
    }

    private mutating func apply(_ pat: ProgramAssociationTable, into events: inout [TSDemuxerEvent]) {
        guard lastPAT != pat else { return }
        lastPAT = pat
        var newPMTPIDs: [UInt16: UInt16] = [:]
        for program in pat.programs where program.programNumber != 0 { newPMTPIDs[program.pid] = program.programNumber }
        for (pid, number) in pmtPIDs where newPMTPIDs[pid] != number {
            sectionAssemblers[pid] = nil
            lastCounters[Self.counterSlot(pid)] = Self.noCounter
            programs[number] = nil
            for (streamPID, stream) in streams.sorted(by: { $0.key < $1.key }) where stream.programNumber == number {
                removeStream(streamPID, into: &events)
            }
        }
        for (pid, number) in newPMTPIDs where pmtPIDs[pid] != number { sectionAssemblers[pid] = PSISectionAssembler() }
        pmtPIDs = newPMTPIDs
    }

    private mutating func apply(_ pmt: ProgramMapTable, into events: inout [TSDemuxerEvent]) {
        let previous = programs[pmt.programNumber]
        guard previous != pmt else { return }
        programs[pmt.programNumber] = pmt
        events.append(.program(pmt))
        let entries = Dictionary(pmt.streams.map { ($0.pid, $0.codec) }, uniquingKeysWith: { first, _ in first })
        for (pid, stream) in streams.sorted(by: { $0.key < $1.key }) where stream.programNumber == pmt.programNumber && entries[pid] == nil {
            removeStream(pid, into: &events)
        }
        for entry in pmt.streams {
            let codec = entry.codec
            guard sectionAssemblers[entry.pid] == nil, entry.pid != TSPacketHeader.patPID else { continue }
            if let existing = streams[entry.pid] {
                guard existing.codec != codec else { continue }
                streams[entry.pid] = Stream(codec: codec, programNumber: pmt.programNumber, assembler: PESAssembler(maxSize: maxPESSize))
                events.append(.codecChanged(pid: entry.pid, from: existing.codec, to: codec))
            } else {
                streams[entry.pid] = Stream(codec: codec, programNumber: pmt.programNumber, assembler: PESAssembler(maxSize: maxPESSize))
                if previous != nil { events.append(.streamAdded(pid: entry.pid, codec: codec)) }
            }
        }
    }

    private mutating func removeStream(_ pid: UInt16, into events: inout [TSDemuxerEvent]) {
        guard let stream = streams.removeValue(forKey: pid) else { return }
        lastCounters[Self.counterSlot(pid)] = Self.noCounter
        events.append(.streamRemoved(pid: pid, codec: stream.codec))
    }

    private mutating func deliver(_ result: Result<PESAssembler.Packet, TSDemuxerError>, pid: UInt16, codec: TSStreamCodec,
                                  into events: inout [TSDemuxerEvent]) {
        switch result {
        case let .failure(error):
            report(error, into: &events)
        case let .success(packet):
            let (units, error) = TSAccessUnitSplitter.split(
                packet.payload, pid: pid, codec: codec, pts: packet.header.pts, dts: packet.header.dts,
                randomAccessIndicator: packet.randomAccessIndicator)
            events += units.map { .accessUnit($0) }
            if let error { report(.malformedPES(pid: pid, error), into: &events) }
        }
    }

    private mutating func report(_ error: TSDemuxerError, into events: inout [TSDemuxerEvent]) {
        switch error {
        case let .bytesSkipped(count): statistics.bytesSkipped += count
        case .continuityError: statistics.continuityErrors += 1
        case .pesTooLarge: statistics.pesTooLarge += 1
        case .truncatedPES: statistics.truncatedPES += 1
        case .unterminatedPES: statistics.unterminatedPES += 1
        case .malformedPES: statistics.malformedPES += 1
        case .malformedSection: statistics.malformedSections += 1
        case .malformedPacket: statistics.malformedPackets += 1
        case .transportError: statistics.transportErrors += 1
        }
        events.append(.error(error))
    }
}
