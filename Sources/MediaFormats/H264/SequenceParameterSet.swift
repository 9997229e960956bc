// ITU-T H.264 (08/2021) §7.3.2.1.1 Sequence parameter set data syntax, §7.4.2.1.1 semantics
// (CropUnitX/CropUnitY in equations 7-19...7-22, Table 6-1 for SubWidthC/SubHeightC), Annex E for the VUI.

/// seq_parameter_set_rbsp(): the fields Sluice needs to size, time and reorder a stream.
public struct SequenceParameterSet: Equatable, Sendable {
    /// profile_idc (66 Baseline, 77 Main, 100 High, 110 High 10, 122 High 4:2:2, 244 High 4:4:4 Predictive, …).
    public var profileIdc: UInt8
    /// constraint_set0_flag…constraint_set5_flag and reserved_zero_2bits as one byte, set0 in the MSB.
    public var constraintFlags: UInt8
    /// level_idc (level × 10; 9 is level 1b).
    public var levelIdc: UInt8
    /// seq_parameter_set_id (0...31).
    public var id: Int
    /// chroma_format_idc: 0 monochrome, 1 4:2:0 (inferred when absent), 2 4:2:2, 3 4:4:4.
    public var chromaFormatIdc: Int = 1
    /// separate_colour_plane_flag (4:4:4 coded as three monochrome planes).
    public var separateColourPlane: Bool = false
    /// BitDepthY = 8 + bit_depth_luma_minus8.
    public var bitDepthLuma: Int = 8
    /// BitDepthC = 8 + bit_depth_chroma_minus8.
    public var bitDepthChroma: Int = 8
    /// qpprime_y_zero_transform_bypass_flag.
    public var qpprimeYZeroTransformBypass: Bool = false
    /// seq_scaling_matrix_present_flag (the lists themselves are parsed and discarded).
    public var seqScalingMatrixPresent: Bool = false
    /// MaxFrameNum = 2^log2MaxFrameNum; log2MaxFrameNum is log2_max_frame_num_minus4 + 4 (4...16).
    public var log2MaxFrameNum: Int
    /// pic_order_cnt_type (0...2).
    public var picOrderCntType: Int
    /// log2_max_pic_order_cnt_lsb_minus4 + 4 (4...16) for POC type 0.
    public var log2MaxPicOrderCntLsb: Int = 0
    /// delta_pic_order_always_zero_flag for POC type 1.
    public var deltaPicOrderAlwaysZero: Bool = false
    /// offset_for_non_ref_pic for POC type 1.
    public var offsetForNonRefPic: Int = 0
    /// offset_for_top_to_bottom_field for POC type 1.
    public var offsetForTopToBottomField: Int = 0
    /// offset_for_ref_frame[] (num_ref_frames_in_pic_order_cnt_cycle entries, at most 255) for POC type 1.
    public var offsetForRefFrame: [Int] = []
    /// max_num_ref_frames (0...16).
    public var maxNumRefFrames: Int
    /// gaps_in_frame_num_value_allowed_flag.
    public var gapsInFrameNumAllowed: Bool
    /// PicWidthInMbs = pic_width_in_mbs_minus1 + 1.
    public var picWidthInMbs: Int
    /// PicHeightInMapUnits = pic_height_in_map_units_minus1 + 1 (field macroblock pairs when not frame_mbs_only).
    public var picHeightInMapUnits: Int
    /// frame_mbs_only_flag: false allows field pictures and MBAFF.
    public var frameMbsOnly: Bool
    /// mb_adaptive_frame_field_flag (false when frame_mbs_only).
    public var mbAdaptiveFrameField: Bool = false
    /// direct_8x8_inference_flag.
    public var direct8x8Inference: Bool
    /// frame_crop_left_offset, in crop units.
    public var frameCropLeftOffset: Int = 0
    /// frame_crop_right_offset, in crop units.
    public var frameCropRightOffset: Int = 0
    /// frame_crop_top_offset, in crop units.
    public var frameCropTopOffset: Int = 0
    /// frame_crop_bottom_offset, in crop units.
    public var frameCropBottomOffset: Int = 0
    /// vui_parameters() when vui_parameters_present_flag is set.
    public var vui: VUIParameters?

    /// Macroblocks per dimension accepted (32768 pixels, far beyond level 6.2's 8192×4320), so sizes never overflow.
    public static let maximumMacroblocksPerDimension = 2048
    /// profile_idc values whose SPS carries chroma_format_idc, bit depths and scaling lists (§7.3.2.1.1).
    public static let chromaFormatProfiles: Set<UInt8> = [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]

    /// Parses a whole SPS NAL unit: header byte included, emulation prevention bytes still present.
    public init(parsing nalUnit: some Collection<UInt8>) throws {
        let header = try NALUnitHeader(parsing: nalUnit)
        guard header.nalUnitType == .sequenceParameterSet else {
            throw MediaFormatError.invalid(structure: "SPS", reason: "nal_unit_type \(header.nalUnitType.rawValue) is not 7")
        }
        var reader = BitReader(EmulationPrevention.removing(from: nalUnit.dropFirst()))
        try self.init(reading: &reader)
    }

    /// seq_parameter_set_data() followed by rbsp_trailing_bits.
    private init(reading reader: inout BitReader) throws {
        profileIdc = UInt8(try reader.readBits(8))
        constraintFlags = UInt8(try reader.readBits(8))
        levelIdc = UInt8(try reader.readBits(8))
        id = try Self.readBounded(&reader, "seq_parameter_set_id", 31)
        if Self.chromaFormatProfiles.contains(profileIdc) {
            chromaFormatIdc = try Self.readBounded(&reader, "chroma_format_idc", 3)
            if chromaFormatIdc == 3 { separateColourPlane = try reader.readFlag() }
            bitDepthLuma = 8 + (try Self.readBounded(&reader, "bit_depth_luma_minus8", 6))
            bitDepthChroma = 8 + (try Self.readBounded(&reader, "bit_depth_chroma_minus8", 6))
            qpprimeYZeroTransformBypass = try reader.readFlag()
            seqScalingMatrixPresent = try reader.readFlag()
            if seqScalingMatrixPresent {
                // 4:4:4 adds Cb and Cr 8x8 lists: 12 lists instead of 8.
                try ScalingList.skipLists(&reader, count: chromaFormatIdc != 3 ? 8 : 12)
            }
        }
        log2MaxFrameNum = 4 + (try Self.readBounded(&reader, "log2_max_frame_num_minus4", 12))
        picOrderCntType = try Self.readBounded(&reader, "pic_order_cnt_type", 2)
        if picOrderCntType == 0 {
            log2MaxPicOrderCntLsb = 4 + (try Self.readBounded(&reader, "log2_max_pic_order_cnt_lsb_minus4", 12))
        } else if picOrderCntType == 1 {
            deltaPicOrderAlwaysZero = try reader.readFlag()
            offsetForNonRefPic = Int(try reader.readSE())
            offsetForTopToBottomField = Int(try reader.readSE())
            let cycleLength = try Self.readBounded(&reader, "num_ref_frames_in_pic_order_cnt_cycle", 255)
            for _ in 0..<cycleLength { offsetForRefFrame.append(Int(try reader.readSE())) }
        }
        maxNumRefFrames = try Self.readBounded(&reader, "max_num_ref_frames", VUIParameters.maximumDPBFrames)
        gapsInFrameNumAllowed = try reader.readFlag()
        picWidthInMbs = 1 + (try Self.readBounded(&reader, "pic_width_in_mbs_minus1", Self.maximumMacroblocksPerDimension - 1))
        picHeightInMapUnits = 1 + (try Self.readBounded(&reader, "pic_height_in_map_units_minus1", Self.maximumMacroblocksPerDimension - 1))
        frameMbsOnly = try reader.readFlag()
        if !frameMbsOnly { mbAdaptiveFrameField = try reader.readFlag() }
        direct8x8Inference = try reader.readFlag()
        if try reader.readFlag() {
            frameCropLeftOffset = Int(try reader.readUE())
            frameCropRightOffset = Int(try reader.readUE())
            frameCropTopOffset = Int(try reader.readUE())
            frameCropBottomOffset = Int(try reader.readUE())
            guard cropUnitX * (frameCropLeftOffset + frameCropRightOffset) < 16 * picWidthInMbs,
                cropUnitY * (frameCropTopOffset + frameCropBottomOffset) < 16 * frameHeightInMbs
            else {
                throw MediaFormatError.invalid(structure: "SPS", reason: "frame cropping leaves no picture")
            }
        }
        if try reader.readFlag() {
            vui = try VUIParameters(reading: &reader)
        }
        // rbsp_stop_one_bit: its absence means the NAL unit was cut short.
        guard try reader.readFlag() else {
            throw MediaFormatError.invalid(structure: "SPS", reason: "rbsp_stop_one_bit missing")
        }
    }

    /// A ue(v) value checked against its semantic upper bound.
    static func readBounded(_ reader: inout BitReader, _ name: String, _ maximum: Int) throws -> Int {
        let value = Int(try reader.readUE())
        guard value <= maximum else {
            throw MediaFormatError.invalid(structure: "SPS", reason: "\(name) \(value) above \(maximum)")
        }
        return value
    }

    /// seq_parameter_set_id of an SPS NAL unit, read without parsing the rest (for keeping sets by id).
    public static func id(ofNALUnit nalUnit: some Collection<UInt8>) throws -> Int {
        // Header + 3 fixed bytes + at most 11 bits of ue(v) fit well in 12 bytes, even with emulation prevention.
        var reader = BitReader(EmulationPrevention.removing(from: nalUnit.prefix(12)))
        try reader.skipBits(32)
        return try readBounded(&reader, "seq_parameter_set_id", 31)
    }

    /// constraint_set0_flag … constraint_set5_flag by number (0...5).
    public func constraintSetFlag(_ index: Int) -> Bool {
        precondition((0...5).contains(index), "constraint_set flags are numbered 0...5")
        return constraintFlags & (0x80 >> UInt8(index)) != 0
    }

    /// ChromaArrayType: 0 when the colour planes are coded separately, else chroma_format_idc.
    public var chromaArrayType: Int { separateColourPlane ? 0 : chromaFormatIdc }

    /// FrameHeightInMbs = (2 − frame_mbs_only_flag) · PicHeightInMapUnits (7-18).
    public var frameHeightInMbs: Int { (frameMbsOnly ? 1 : 2) * picHeightInMapUnits }

    /// CropUnitX (7-19, 7-21): SubWidthC, or 1 without chroma.
    public var cropUnitX: Int { chromaArrayType == 0 || chromaArrayType == 3 ? 1 : 2 }

    /// CropUnitY (7-20, 7-22): SubHeightC · (2 − frame_mbs_only_flag), or (2 − frame_mbs_only_flag) without chroma.
    public var cropUnitY: Int {
        let subHeightC = chromaArrayType == 1 ? 2 : 1
        return subHeightC * (frameMbsOnly ? 1 : 2)
    }

    /// Displayed width in luma samples, after cropping.
    public var width: Int { 16 * picWidthInMbs - cropUnitX * (frameCropLeftOffset + frameCropRightOffset) }

    /// Displayed height in luma samples (of a frame), after cropping.
    public var height: Int { 16 * frameHeightInMbs - cropUnitY * (frameCropTopOffset + frameCropBottomOffset) }

    /// MaxFrameNum = 2^log2MaxFrameNum (7-10).
    public var maxFrameNum: Int { 1 << log2MaxFrameNum }

    /// Frames per second from VUI timing: time_scale / (2 · num_units_in_tick), a frame being two field ticks.
    public var frameRate: Double? {
        guard let timing = vui?.timing else { return nil }
        return Double(timing.timeScale) / (2 * Double(timing.numUnitsInTick))
    }

    /// max_num_reorder_frames from the VUI bitstream restrictions, when present.
    public var maxNumReorderFrames: Int? { vui?.bitstreamRestriction?.maxNumReorderFrames }

    /// max_dec_frame_buffering from the VUI bitstream restrictions, when present.
    public var maxDecFrameBuffering: Int? { vui?.bitstreamRestriction?.maxDecFrameBuffering }
}
