import MediaFormats

/// The access units of an Annex B HEVC stream: a new one starts at a VPS, AUD or prefix SEI after a VCL NAL unit, or
/// at a VCL NAL unit whose first_slice_segment_in_pic_flag is set after one (ITU-T H.265 §7.4.2.4.4, simplified).
func hevcAccessUnits(in stream: [UInt8]) -> [[UInt8]] {
    var units: [[UInt8]] = []
    var current: [[UInt8]] = []
    var hasVCL = false
    for nalUnit in AnnexB.nalUnits(in: stream) {
        let type = (nalUnit[nalUnit.startIndex] >> 1) & 0x3F
        let startsPicture = type < 32 && nalUnit.count > 2 && nalUnit[nalUnit.startIndex + 2] & 0x80 != 0
        if hasVCL && (startsPicture || type == 32 || type == 35 || type == 39) {
            units.append(annexB(current))
            current = []
            hasVCL = false
        }
        current.append(Array(nalUnit))
        if type < 32 { hasVCL = true }
    }
    if !current.isEmpty { units.append(annexB(current)) }
    return units
}

/// nal_unit_type of each NAL unit of an Annex B buffer.
func hevcTypes(_ annexBBytes: [UInt8]) -> [UInt8] {
    AnnexB.nalUnits(in: annexBBytes).map { ($0[$0.startIndex] >> 1) & 0x3F }
}
