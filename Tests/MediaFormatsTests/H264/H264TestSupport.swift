import MediaFormats

extension H264Fixtures {
    /// Bytes from a hex string ("6742c0…"); test vectors only, so a malformed literal is a test bug.
    static func hex(_ string: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var iterator = string.makeIterator()
        while let high = iterator.next(), let low = iterator.next() {
            guard let value = UInt8(String([high, low]), radix: 16) else { preconditionFailure("bad hex literal \(string)") }
            bytes.append(value)
        }
        return bytes
    }
}

/// An Annex B stream of `nalUnits`, each after a 4-byte start code (or a 3-byte one when `short`).
func annexB(_ nalUnits: [[UInt8]], short: Bool = false) -> [UInt8] {
    var bytes: [UInt8] = []
    for nalUnit in nalUnits {
        bytes += short ? [0, 0, 1] : [0, 0, 0, 1]
        bytes += nalUnit
    }
    return bytes
}

/// An AVCC sample of `nalUnits` with `lengthSize`-byte big-endian lengths (zero-length entries allowed).
func avcc(_ nalUnits: [[UInt8]], lengthSize: Int = 4) -> [UInt8] {
    var bytes: [UInt8] = []
    for nalUnit in nalUnits {
        for shift in stride(from: 8 * (lengthSize - 1), through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: nalUnit.count >> shift))
        }
        bytes += nalUnit
    }
    return bytes
}

/// Adds emulation prevention (§7.4.1) to an RBSP, the inverse of `EmulationPrevention.removing`.
func addingEmulationPrevention(_ rbsp: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    var zeros = 0
    for byte in rbsp {
        if zeros >= 2 && byte <= 3 {
            out.append(3)
            zeros = 0
        }
        out.append(byte)
        zeros = byte == 0 ? zeros + 1 : 0
    }
    return out
}

extension BitWriter {
    /// ue(v).
    mutating func writeUE(_ value: UInt32) {
        let codeNum = UInt64(value) + 1
        var bits = 0
        while (codeNum >> bits) > 1 { bits += 1 }
        write(0, bits: bits)
        write(UInt32(truncatingIfNeeded: codeNum), bits: bits + 1)
    }

    /// se(v).
    mutating func writeSE(_ value: Int32) {
        writeUE(value > 0 ? UInt32(2 * Int64(value) - 1) : UInt32(-2 * Int64(value)))
    }

    /// rbsp_trailing_bits(): the stop bit, then zeros to the byte boundary.
    mutating func writeTrailingBits() {
        write(1, bits: 1)
        while bitLength % 8 != 0 { write(0, bits: 1) }
    }

    /// A whole NAL unit: header byte, then these bits with trailing bits and emulation prevention.
    mutating func nalUnit(header: UInt8) -> [UInt8] {
        writeTrailingBits()
        return [header] + addingEmulationPrevention(bytes)
    }
}

/// Every proper prefix of `bytes` (lengths 0 to count − 1), for truncation tests.
func truncatedPrefixes(of bytes: [UInt8]) -> [[UInt8]] {
    (0..<bytes.count).map { Array(bytes.prefix($0)) }
}

/// A tiny hand-built stream (Baseline syntax, CAVLC, field coding allowed, bottom-field POC deltas present)
/// for POC and timestamp tests: its SPS, PPS and slice headers are written with BitWriter.
struct SyntheticStream {
    let pocType: Int
    /// POC type 1 parameters: offset_for_non_ref_pic, offset_for_top_to_bottom_field, offset_for_ref_frame[].
    var pocType1 = (nonRef: -2, topToBottom: 1, cycle: [4, -6, 10])
    /// MaxFrameNum and MaxPicOrderCntLsb are both 16.
    static let log2Max = 4

    var sps: [UInt8] {
        var writer = BitWriter()
        writer.write(66, bits: 8)
        writer.write(0, bits: 8)
        writer.write(30, bits: 8)
        writer.writeUE(0)  // seq_parameter_set_id
        writer.writeUE(0)  // log2_max_frame_num_minus4
        writer.writeUE(UInt32(pocType))
        if pocType == 0 {
            writer.writeUE(0)  // log2_max_pic_order_cnt_lsb_minus4
        } else if pocType == 1 {
            writer.writeFlag(false)  // delta_pic_order_always_zero_flag
            writer.writeSE(Int32(pocType1.nonRef))
            writer.writeSE(Int32(pocType1.topToBottom))
            writer.writeUE(UInt32(pocType1.cycle.count))
            for offset in pocType1.cycle { writer.writeSE(Int32(offset)) }
        }
        writer.writeUE(4)  // max_num_ref_frames
        writer.writeFlag(false)
        writer.writeUE(0)  // 16x32 luma
        writer.writeUE(0)
        writer.writeFlag(false)  // frame_mbs_only_flag: field pictures allowed
        writer.writeFlag(false)  // mb_adaptive_frame_field_flag
        writer.writeFlag(true)  // direct_8x8_inference_flag
        writer.writeFlag(false)  // frame_cropping_flag
        writer.writeFlag(false)  // vui_parameters_present_flag
        return writer.nalUnit(header: 0x67)
    }

    var pps: [UInt8] {
        var writer = BitWriter()
        writer.writeUE(0)
        writer.writeUE(0)
        writer.writeFlag(false)  // CAVLC
        writer.writeFlag(true)  // bottom_field_pic_order_in_frame_present_flag
        writer.writeUE(0)  // one slice group
        writer.writeUE(0)
        writer.writeUE(0)
        writer.writeFlag(false)  // weighted_pred_flag
        writer.write(0, bits: 2)  // weighted_bipred_idc
        writer.writeSE(0)
        writer.writeSE(0)
        writer.writeSE(0)
        writer.writeFlag(false)  // deblocking_filter_control_present_flag
        writer.writeFlag(false)
        writer.writeFlag(false)
        return writer.nalUnit(header: 0x68)
    }

    /// One picture's slice header (plus a byte of stand-in slice data).
    struct Picture {
        var type: SliceType = .p
        var idr = false
        var reference = true
        var frameNum = 0
        var lsb = 0
        var deltaBottom = 0
        var delta = (0, 0)
        var field: (bottom: Bool, Void)? = nil
        var mmco5 = false
    }

    func slice(_ picture: Picture) -> [UInt8] {
        var writer = BitWriter()
        writer.writeUE(0)
        writer.writeUE(UInt32(picture.type.rawValue + 5))
        writer.writeUE(0)
        writer.write(UInt32(picture.frameNum), bits: Self.log2Max)
        writer.writeFlag(picture.field != nil)
        if let field = picture.field { writer.writeFlag(field.bottom) }
        if picture.idr { writer.writeUE(0) }
        if pocType == 0 {
            writer.write(UInt32(picture.lsb), bits: Self.log2Max)
            if picture.field == nil { writer.writeSE(Int32(picture.deltaBottom)) }
        } else if pocType == 1 {
            writer.writeSE(Int32(picture.delta.0))
            if picture.field == nil { writer.writeSE(Int32(picture.delta.1)) }
        }
        if picture.type == .b { writer.writeFlag(true) }
        if picture.type == .p || picture.type == .b { writer.writeFlag(false) }
        if picture.type == .p { writer.writeFlag(false) }
        if picture.type == .b {
            writer.writeFlag(false)
            writer.writeFlag(false)
        }
        if picture.reference {
            if picture.idr {
                writer.writeFlag(false)
                writer.writeFlag(false)
            } else if picture.mmco5 {
                writer.writeFlag(true)
                writer.writeUE(5)
                writer.writeUE(0)
            } else {
                writer.writeFlag(false)
            }
        }
        writer.writeSE(0)  // slice_qp_delta
        writer.write(0xA5, bits: 8)
        let header: UInt8 = picture.idr ? 0x65 : (picture.reference ? 0x41 : 0x01)
        return writer.nalUnit(header: header)
    }
}
