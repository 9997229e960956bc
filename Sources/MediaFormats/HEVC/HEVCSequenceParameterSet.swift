// ITU-T H.265 (v8, 08/2021) §7.3.2.2.1 seq_parameter_set_rbsp(), §7.4.3.2.1 semantics: read up to and including the
// VUI timing information. The SPS extensions (range, multilayer, 3D, SCC) follow the VUI and are not read.

/// The fields of an HEVC SPS that Sluice uses: ids, profile/tier/level, picture size, chroma, bit depth, VUI.
public struct HEVCSequenceParameterSet: Hashable, Sendable {
    /// sps_video_parameter_set_id (0...15).
    public var videoParameterSetId: Int
    /// sps_max_sub_layers_minus1 + 1 (1...7).
    public var maxSubLayers: Int
    /// sps_temporal_id_nesting_flag.
    public var temporalIdNesting: Bool
    /// The general profile, tier and level.
    public var profileTierLevel: HEVCProfileTierLevel
    /// sps_seq_parameter_set_id (0...15).
    public var id: Int
    /// chroma_format_idc: 0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4.
    public var chromaFormatIdc: Int
    /// separate_colour_plane_flag (4:4:4 only).
    public var separateColourPlane: Bool
    /// pic_width_in_luma_samples, pic_height_in_luma_samples: the coded size.
    public var codedWidth: Int
    public var codedHeight: Int
    /// conf_win_{left,right,top,bottom}_offset, in chroma units; all 0 without a conformance window.
    public var conformanceWindow: ConformanceWindow

    /// conf_win offsets, in units of SubWidthC (left, right) and SubHeightC (top, bottom) luma samples.
    public struct ConformanceWindow: Hashable, Sendable {
        public var left = 0
        public var right = 0
        public var top = 0
        public var bottom = 0
    }
    /// BitDepthY and BitDepthC (8...16).
    public var bitDepthLuma: Int
    public var bitDepthChroma: Int
    /// log2_max_pic_order_cnt_lsb_minus4 + 4.
    public var log2MaxPicOrderCntLsb: Int
    /// sps_max_dec_pic_buffering_minus1 + 1 and sps_max_num_reorder_pics of the highest sub-layer.
    public var maxDecPicBuffering: Int
    public var maxNumReorderPics: Int
    /// The short-term reference picture sets (needed by slice headers that refer to them).
    public var shortTermReferencePictureSets: [HEVCShortTermReferencePictureSet]
    /// The VUI up to its timing information; nil when vui_parameters_present_flag is 0.
    public var vui: HEVCVUIParameters?

    /// sps_seq_parameter_set_id and sps_video_parameter_set_id are at most 15.
    public static let maxId = 15
    /// bit_depth_*_minus8 is at most 8.
    public static let maxBitDepthMinus8 = 8
    /// log2_max_pic_order_cnt_lsb_minus4 is at most 12.
    public static let maxLog2MaxPicOrderCntLsbMinus4 = 12
    /// num_long_term_ref_pics_sps is at most 32.
    public static let maxLongTermReferencePictures = 32
    /// The largest picture dimension accepted: level 6.2's MaxLumaPs is 35,651,584 samples, √(8 × that) ≈ 16,888.
    public static let maxDimension = 16_888

    private static let structure = "HEVC SPS"

    /// The displayed width: the coded width less the conformance window (SubWidthC × (left + right)).
    public var width: Int { codedWidth - subWidthC * (conformanceWindow.left + conformanceWindow.right) }
    /// The displayed height: the coded height less the conformance window (SubHeightC × (top + bottom)).
    public var height: Int { codedHeight - subHeightC * (conformanceWindow.top + conformanceWindow.bottom) }

    /// SubWidthC (Table 6-1): 2 for 4:2:0 and 4:2:2, else 1.
    var subWidthC: Int { (chromaFormatIdc == 1 || chromaFormatIdc == 2) && !separateColourPlane ? 2 : 1 }
    /// SubHeightC (Table 6-1): 2 for 4:2:0, else 1.
    var subHeightC: Int { chromaFormatIdc == 1 && !separateColourPlane ? 2 : 1 }

    /// Frames per second from the VUI timing, when present.
    public var frameRate: Double? { vui?.frameRate }

    /// Parses an SPS NAL unit (2-byte header included, emulation prevention not yet removed).
    public init(parsing nalUnit: some Collection<UInt8>) throws {
        let header = try HEVCNALUnitHeader(parsing: nalUnit)
        guard header.nalUnitType == .sequenceParameterSet else {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "NAL unit type \(header.nalUnitType)")
        }
        var reader = BitReader(EmulationPrevention.removing(from: nalUnit.dropFirst(HEVCNALUnitHeader.size)))
        videoParameterSetId = Int(try reader.readBits(4))
        let maxSubLayersMinus1 = Int(try reader.readBits(3))
        maxSubLayers = maxSubLayersMinus1 + 1
        temporalIdNesting = try reader.readFlag()
        profileTierLevel = try HEVCProfileTierLevel(parsing: &reader, maxNumSubLayersMinus1: maxSubLayersMinus1)
        id = try Self.bounded(reader.readUE(), Self.maxId, "sps_seq_parameter_set_id")
        chromaFormatIdc = try Self.bounded(reader.readUE(), 3, "chroma_format_idc")
        separateColourPlane = chromaFormatIdc == 3 ? try reader.readFlag() : false
        codedWidth = try Self.bounded(reader.readUE(), Self.maxDimension, "pic_width_in_luma_samples")
        codedHeight = try Self.bounded(reader.readUE(), Self.maxDimension, "pic_height_in_luma_samples")
        conformanceWindow = ConformanceWindow()
        if try reader.readFlag() {
            conformanceWindow.left = try Self.bounded(reader.readUE(), Self.maxDimension, "conf_win_left_offset")
            conformanceWindow.right = try Self.bounded(reader.readUE(), Self.maxDimension, "conf_win_right_offset")
            conformanceWindow.top = try Self.bounded(reader.readUE(), Self.maxDimension, "conf_win_top_offset")
            conformanceWindow.bottom = try Self.bounded(reader.readUE(), Self.maxDimension, "conf_win_bottom_offset")
        }
        bitDepthLuma = try Self.bounded(reader.readUE(), Self.maxBitDepthMinus8, "bit_depth_luma_minus8") + 8
        bitDepthChroma = try Self.bounded(reader.readUE(), Self.maxBitDepthMinus8, "bit_depth_chroma_minus8") + 8
        log2MaxPicOrderCntLsb = try Self.bounded(
            reader.readUE(), Self.maxLog2MaxPicOrderCntLsbMinus4, "log2_max_pic_order_cnt_lsb_minus4") + 4
        let orderingInfoForEachSubLayer = try reader.readFlag()
        maxDecPicBuffering = 0
        maxNumReorderPics = 0
        for _ in (orderingInfoForEachSubLayer ? 0 : maxSubLayersMinus1)...maxSubLayersMinus1 {
            maxDecPicBuffering = try Self.bounded(reader.readUE(), 15, "sps_max_dec_pic_buffering_minus1") + 1
            maxNumReorderPics = try Self.bounded(reader.readUE(), 15, "sps_max_num_reorder_pics")
            _ = try reader.readUE()  // sps_max_latency_increase_plus1
        }
        // log2_min_luma_coding_block_size_minus3, log2_diff_max_min_luma_coding_block_size,
        // log2_min_luma_transform_block_size_minus2, log2_diff_max_min_luma_transform_block_size,
        // max_transform_hierarchy_depth_inter, max_transform_hierarchy_depth_intra.
        for _ in 0..<6 { _ = try reader.readUE() }
        if try reader.readFlag(), try reader.readFlag() {  // scaling_list_enabled, sps_scaling_list_data_present
            try HEVCScalingListData.skip(&reader)
        }
        try reader.skipBits(2)  // amp_enabled_flag, sample_adaptive_offset_enabled_flag
        if try reader.readFlag() {  // pcm_enabled_flag
            try reader.skipBits(8)  // pcm_sample_bit_depth_luma_minus1, pcm_sample_bit_depth_chroma_minus1
            _ = try reader.readUE()
            _ = try reader.readUE()
            try reader.skipBits(1)  // pcm_loop_filter_disabled_flag
        }
        let setCount = try Self.bounded(
            reader.readUE(), HEVCShortTermReferencePictureSet.maxSetsInSPS, "num_short_term_ref_pic_sets")
        var sets: [HEVCShortTermReferencePictureSet] = []
        for index in 0..<setCount {
            sets.append(try HEVCShortTermReferencePictureSet(parsing: &reader, index: index, previous: sets))
        }
        shortTermReferencePictureSets = sets
        if try reader.readFlag() {  // long_term_ref_pics_present_flag
            let count = try Self.bounded(reader.readUE(), Self.maxLongTermReferencePictures, "num_long_term_ref_pics_sps")
            // lt_ref_pic_poc_lsb_sps (log2MaxPicOrderCntLsb bits) + used_by_curr_pic_lt_sps_flag, each.
            try reader.skipBits(count * (log2MaxPicOrderCntLsb + 1))
        }
        try reader.skipBits(2)  // sps_temporal_mvp_enabled_flag, strong_intra_smoothing_enabled_flag
        vui = try reader.readFlag() ? try HEVCVUIParameters(parsing: &reader) : nil
        guard width > 0, height > 0 else {
            throw MediaFormatError.invalid(
                structure: Self.structure, reason: "conformance window leaves \(width)x\(height) of \(codedWidth)x\(codedHeight)")
        }
    }

    /// The sps_seq_parameter_set_id of an SPS NAL unit, read without the rest (for parameter-set bookkeeping).
    public static func id(ofNALUnit nalUnit: some Collection<UInt8>) throws -> Int {
        var reader = BitReader(EmulationPrevention.removing(from: nalUnit.dropFirst(HEVCNALUnitHeader.size)))
        try reader.skipBits(4)
        let maxSubLayersMinus1 = Int(try reader.readBits(3))
        try reader.skipBits(1)
        _ = try HEVCProfileTierLevel(parsing: &reader, maxNumSubLayersMinus1: maxSubLayersMinus1)
        return try bounded(reader.readUE(), maxId, "sps_seq_parameter_set_id")
    }

    private static func bounded(_ value: UInt32, _ limit: Int, _ field: String) throws -> Int {
        guard Int(value) <= limit else {
            throw MediaFormatError.invalid(structure: structure, reason: "\(field) \(value) (at most \(limit))")
        }
        return Int(value)
    }
}
