// ITU-T H.264 (08/2021) §8.2.1 Decoding process for picture order count: §8.2.1.1 (type 0),
// §8.2.1.2 (type 1), §8.2.1.3 (type 2), and the memory_management_control_operation 5 rules of §8.2.1.

/// Computes PicOrderCnt for each picture in decoding order, keeping the "previous picture" state §8.2.1 needs.
///
/// Arithmetic wraps instead of trapping: hostile streams yield meaningless counts, never a crash.
public struct PictureOrderCounter: Sendable {
    /// prevPicOrderCntMsb / prevPicOrderCntLsb for type 0, taken from the previous reference picture.
    private var prevPicOrderCntMsb = 0
    private var prevPicOrderCntLsb = 0
    /// prevFrameNumOffset / prevFrameNum for types 1 and 2, taken from the previous picture.
    private var prevFrameNumOffset = 0
    private var prevFrameNum = 0

    /// A counter in its initial state (the first picture should be an IDR).
    public init() {}

    /// Forgets all history, as after a seek or a new stream.
    public mutating func reset() { self = PictureOrderCounter() }

    /// PicOrderCnt of the picture whose first slice is `slice`: min(top, bottom) for a frame, the field's own
    /// count for a field. A picture with MMCO 5 returns its count after §8.2.1's reset (0 for a frame), because
    /// it opens a new count period.
    public mutating func compute(_ slice: SliceHeader, sps: SequenceParameterSet) -> Int {
        let top: Int
        let bottom: Int
        switch sps.picOrderCntType {
        case 0: (top, bottom) = type0(slice, sps)
        case 1: (top, bottom) = type1(slice, sps)
        default: (top, bottom) = type2(slice, sps)
        }
        let poc: Int
        if !slice.fieldPic {
            poc = min(top, bottom)
        } else {
            poc = slice.bottomField ? bottom : top
        }
        guard slice.hasMemoryManagementControlOperation5 else { return poc }
        // §8.2.1: after decoding, tempPicOrderCnt = PicOrderCnt(CurrPic) is subtracted from the picture's counts.
        let tempTop = top &- poc
        if sps.picOrderCntType == 0 && slice.isReference {
            // The next picture sees prevPicOrderCntMsb 0 and, unless this was a bottom field, lsb = TopFieldOrderCnt.
            prevPicOrderCntMsb = 0
            prevPicOrderCntLsb = slice.fieldPic && slice.bottomField ? 0 : tempTop
        }
        prevFrameNumOffset = 0
        prevFrameNum = 0
        return 0
    }

    /// §8.2.1.1: the lsb travels in the slice, the msb is inferred from the previous reference picture.
    private mutating func type0(_ slice: SliceHeader, _ sps: SequenceParameterSet) -> (Int, Int) {
        if slice.isIDR {
            prevPicOrderCntMsb = 0
            prevPicOrderCntLsb = 0
        }
        let maxLsb = 1 << sps.log2MaxPicOrderCntLsb
        let lsb = slice.picOrderCntLsb
        let msb: Int
        if lsb < prevPicOrderCntLsb && prevPicOrderCntLsb - lsb >= maxLsb / 2 {
            msb = prevPicOrderCntMsb &+ maxLsb
        } else if lsb > prevPicOrderCntLsb && lsb - prevPicOrderCntLsb > maxLsb / 2 {
            msb = prevPicOrderCntMsb &- maxLsb
        } else {
            msb = prevPicOrderCntMsb
        }
        var top = 0
        var bottom = 0
        if !slice.fieldPic {
            top = msb &+ lsb
            bottom = top &+ slice.deltaPicOrderCntBottom
        } else if slice.bottomField {
            bottom = msb &+ lsb
        } else {
            top = msb &+ lsb
        }
        if slice.isReference {
            prevPicOrderCntMsb = msb
            prevPicOrderCntLsb = lsb
        }
        return (top, bottom)
    }

    /// FrameNumOffset (8-6, 8-11): grows by MaxFrameNum each time frame_num wraps.
    private mutating func frameNumOffset(_ slice: SliceHeader, _ sps: SequenceParameterSet) -> Int {
        let offset: Int
        if slice.isIDR {
            offset = 0
        } else if prevFrameNum > slice.frameNum {
            offset = prevFrameNumOffset &+ sps.maxFrameNum
        } else {
            offset = prevFrameNumOffset
        }
        prevFrameNumOffset = offset
        prevFrameNum = slice.frameNum
        return offset
    }

    /// §8.2.1.2: counts derived from frame_num and the SPS's expected cycle of reference-frame offsets.
    private mutating func type1(_ slice: SliceHeader, _ sps: SequenceParameterSet) -> (Int, Int) {
        let offset = frameNumOffset(slice, sps)
        let cycle = sps.offsetForRefFrame
        var absFrameNum = cycle.isEmpty ? 0 : offset &+ slice.frameNum
        if !slice.isReference && absFrameNum > 0 { absFrameNum -= 1 }
        var expected = 0
        if absFrameNum > 0 {
            let cycleCount = (absFrameNum - 1) / cycle.count
            let frameNumInCycle = (absFrameNum - 1) % cycle.count
            let deltaPerCycle = cycle.reduce(0, &+)
            expected = cycleCount &* deltaPerCycle
            for i in 0...frameNumInCycle { expected = expected &+ cycle[i] }
        }
        if !slice.isReference { expected = expected &+ sps.offsetForNonRefPic }
        var top = 0
        var bottom = 0
        if !slice.fieldPic {
            top = expected &+ slice.deltaPicOrderCnt[0]
            bottom = top &+ sps.offsetForTopToBottomField &+ slice.deltaPicOrderCnt[1]
        } else if !slice.bottomField {
            top = expected &+ slice.deltaPicOrderCnt[0]
        } else {
            bottom = expected &+ sps.offsetForTopToBottomField &+ slice.deltaPicOrderCnt[0]
        }
        return (top, bottom)
    }

    /// §8.2.1.3: output order equals decoding order; counts are 2·(FrameNumOffset + frame_num), minus 1 if non-reference.
    private mutating func type2(_ slice: SliceHeader, _ sps: SequenceParameterSet) -> (Int, Int) {
        let offset = frameNumOffset(slice, sps)
        let temp: Int
        if slice.isIDR {
            temp = 0
        } else if !slice.isReference {
            temp = 2 &* (offset &+ slice.frameNum) &- 1
        } else {
            temp = 2 &* (offset &+ slice.frameNum)
        }
        return (temp, temp)
    }
}
