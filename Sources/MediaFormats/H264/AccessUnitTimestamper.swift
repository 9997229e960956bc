// ITU-T H.264 (08/2021) §8.2.1 (picture order count gives output order within a period that an IDR or
// memory_management_control_operation 5 starts) and §C.4.5.3 / Annex E max_num_reorder_frames (the output delay).
// Raw Annex B input carries no timestamps; this derives them from POC and a constant frame duration.

/// Gives PTS and DTS to access units in decoding order from their picture order counts.
///
/// Each POC period (IDR to IDR, or MMCO 5) is buffered until the next one starts, so memory is bounded by the GOP
/// (and by `maximumPeriodLength`). Within a period an access unit's display index is the rank of its POC;
/// DTS = decodeIndex · duration and PTS = (displayIndex + R) · duration, where the reorder delay R is
/// `maxNumReorderFrames` from the VUI when given, else max(decodeIndex − displayIndex) over the first period,
/// and grows (never shrinks) when a later period needs more. So DTS strictly increases, PTS ≥ DTS, PTS is unique.
public struct AccessUnitTimestamper<Payload> {
    /// An access unit with its timestamps, released in decoding order.
    public struct Timed {
        /// What the caller pushed (the access unit, or an index to it).
        public var payload: Payload
        /// The position in decoding order since the start (or the last `reset()`).
        public var decodeIndex: Int64
        /// The picture order count pushed with it.
        public var pictureOrderCount: Int
        /// Presentation timestamp, in the units of `frameDuration`.
        public var pts: Int64
        /// Decoding timestamp, in the units of `frameDuration`.
        public var dts: Int64
    }

    /// Duration of one frame in the caller's time base (e.g. 3000 for 30 fps at 1/90000, or 1 to count frames).
    public let frameDuration: Int64
    /// Access units one period may hold before it is cut (open-GOP streams may have a single IDR).
    public let maximumPeriodLength: Int
    /// R, in frames; nil until the first period completes unless the VUI gave it.
    public private(set) var reorderDelay: Int?

    private var pending: [(payload: Payload, poc: Int)] = []
    private var pendingMaximumPOC = Int.min
    /// Decode index of `pending[0]`.
    private var periodStart: Int64 = 0

    /// Default for `maximumPeriodLength`: 10 s at 60 fps, well past usual GOPs.
    public static var defaultMaximumPeriodLength: Int { 600 }

    /// A timestamper for frames of `frameDuration`; `maxNumReorderFrames` from the VUI fixes R up front.
    /// A duration or period length below 1 (say, derived from a VUI with a zero field) is taken as 1.
    public init(frameDuration: Int64, maxNumReorderFrames: Int? = nil, maximumPeriodLength: Int = defaultMaximumPeriodLength) {
        self.frameDuration = Swift.max(frameDuration, 1)
        self.maximumPeriodLength = Swift.max(maximumPeriodLength, 1)
        self.reorderDelay = maxNumReorderFrames.map { Swift.max(0, $0) }
    }

    /// Raises R to at least `frames` (an SPS with bitstream restrictions arrived); R never shrinks.
    public mutating func raiseReorderDelay(toAtLeast frames: Int) {
        reorderDelay = Swift.max(reorderDelay ?? 0, frames)
    }

    /// Takes the next access unit in decoding order; returns the previous period when this one starts a new one.
    ///
    /// - Parameter startsNewPeriod: the access unit is an IDR or carries MMCO 5.
    public mutating func push(_ payload: Payload, pictureOrderCount: Int, startsNewPeriod: Bool) -> [Timed] {
        var released: [Timed] = []
        if !pending.isEmpty && (startsNewPeriod || mustCutPeriod(before: pictureOrderCount)) {
            released = completePeriod()
        }
        pending.append((payload, pictureOrderCount))
        pendingMaximumPOC = Swift.max(pendingMaximumPOC, pictureOrderCount)
        return released
    }

    /// Releases everything still buffered (end of stream).
    public mutating func flush() -> [Timed] {
        pending.isEmpty ? [] : completePeriod()
    }

    /// Back to the start: decode index 0, R as given at init forgotten, nothing buffered.
    public mutating func reset() {
        self = AccessUnitTimestamper(frameDuration: frameDuration, maximumPeriodLength: maximumPeriodLength)
    }

    /// A period past its length limit is cut before an access unit that follows every POC so far (an anchor
    /// picture), where no later picture is expected to display earlier; at twice the limit it is cut anyway.
    private func mustCutPeriod(before poc: Int) -> Bool {
        guard pending.count >= maximumPeriodLength else { return false }
        return poc > pendingMaximumPOC || pending.count >= 2 * maximumPeriodLength
    }

    /// Ranks the buffered period by POC, settles R, and returns it timestamped in decoding order.
    private mutating func completePeriod() -> [Timed] {
        let count = pending.count
        // Ties (never in a valid stream) keep decoding order so ranks stay unique.
        let displayOrder = pending.indices.sorted { (pending[$0].poc, $0) < (pending[$1].poc, $1) }
        var displayIndex = [Int](repeating: 0, count: count)
        for (rank, index) in displayOrder.enumerated() { displayIndex[index] = rank }
        var needed = 0
        for index in 0..<count { needed = Swift.max(needed, index - displayIndex[index]) }
        let delay = Swift.max(reorderDelay ?? needed, needed)
        reorderDelay = delay
        var timed: [Timed] = []
        timed.reserveCapacity(count)
        for (index, entry) in pending.enumerated() {
            let decodeIndex = periodStart + Int64(index)
            timed.append(Timed(
                payload: entry.payload,
                decodeIndex: decodeIndex,
                pictureOrderCount: entry.poc,
                // Saturating: a huge frameDuration (from a VUI of 2^32 − 1 units per tick) cannot trap.
                pts: periodStart.addingSaturating(Int64(displayIndex[index])).addingSaturating(Int64(delay)).multipliedSaturating(by: frameDuration),
                dts: decodeIndex.multipliedSaturating(by: frameDuration)
            ))
        }
        periodStart += Int64(count)
        pending.removeAll(keepingCapacity: true)
        pendingMaximumPOC = Int.min
        return timed
    }
}

extension AccessUnitTimestamper: Sendable where Payload: Sendable {}
extension AccessUnitTimestamper.Timed: Sendable where Payload: Sendable {}
extension AccessUnitTimestamper.Timed: Equatable where Payload: Equatable {}

/// Timestamps whole Annex B access units: keeps the SPS/PPS maps, parses the first slice header and computes
/// the POC itself, so the engine only hands it bytes.
public struct AnnexBAccessUnitTimestamper: Sendable {
    /// An access unit's bytes with its timestamps.
    public typealias Timed = AccessUnitTimestamper<[UInt8]>.Timed

    private var timestamper: AccessUnitTimestamper<[UInt8]>
    private var counter = PictureOrderCounter()
    private var sequenceParameterSets: [Int: SequenceParameterSet] = [:]
    private var pictureParameterSets: [Int: PictureParameterSet] = [:]

    /// A timestamper for frames of `frameDuration` (> 0) in the caller's time base.
    public init(frameDuration: Int64, maximumPeriodLength: Int = AccessUnitTimestamper<[UInt8]>.defaultMaximumPeriodLength) {
        timestamper = AccessUnitTimestamper(frameDuration: frameDuration, maximumPeriodLength: maximumPeriodLength)
    }

    /// R in frames, once known.
    public var reorderDelay: Int? { timestamper.reorderDelay }

    /// Takes the next access unit in decoding order; returns access units whose timestamps are now final.
    /// Throws when the access unit has no coded slice or its slice refers to unknown parameter sets.
    public mutating func push(_ accessUnit: [UInt8]) throws -> [Timed] {
        var firstSlice: ArraySlice<UInt8>?
        for range in AnnexB.nalUnitRanges(in: accessUnit) {
            let nalUnit = accessUnit[range]
            switch NALUnitHeader(nalUnit[nalUnit.startIndex]).nalUnitType {
            case .sequenceParameterSet:
                let sps = try SequenceParameterSet(parsing: nalUnit)
                sequenceParameterSets[sps.id] = sps
                if let frames = sps.maxNumReorderFrames { timestamper.raiseReorderDelay(toAtLeast: frames) }
            case .pictureParameterSet:
                let ids = try PictureParameterSet.ids(ofNALUnit: nalUnit)
                let chroma = sequenceParameterSets[ids.spsId]?.chromaFormatIdc ?? 1
                pictureParameterSets[ids.id] = try PictureParameterSet(parsing: nalUnit, chromaFormatIdc: chroma)
            case .codedSliceIDR, .codedSliceNonIDR:
                if firstSlice == nil { firstSlice = nalUnit }
            default:
                continue
            }
        }
        guard let firstSlice else {
            throw MediaFormatError.invalid(structure: "access unit", reason: "no coded slice (nal_unit_type 1 or 5)")
        }
        let slice = try SliceHeader(
            parsing: firstSlice, sequenceParameterSets: sequenceParameterSets, pictureParameterSets: pictureParameterSets)
        // The slice header parsed, so its PPS and that PPS's SPS are known.
        guard let pps = pictureParameterSets[slice.ppsId], let sps = sequenceParameterSets[pps.spsId] else {
            throw MediaFormatError.invalid(structure: "slice header", reason: "unknown parameter set")
        }
        let poc = counter.compute(slice, sps: sps)
        return timestamper.push(
            accessUnit, pictureOrderCount: poc,
            startsNewPeriod: slice.isIDR || slice.hasMemoryManagementControlOperation5)
    }

    /// Releases everything still buffered (end of stream).
    public mutating func flush() -> [Timed] { timestamper.flush() }

    /// Back to the start: parameter sets, POC state and timestamps forgotten.
    public mutating func reset() {
        timestamper.reset()
        counter.reset()
        sequenceParameterSets = [:]
        pictureParameterSets = [:]
    }
}
