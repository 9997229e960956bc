// ITU-T H.264 (08/2021) §7.3.2.2 Picture parameter set RBSP syntax, §7.4.2.2 semantics.

/// pic_parameter_set_rbsp(): everything a slice header depends on, slice-group (FMO) syntax included.
public struct PictureParameterSet: Equatable, Sendable {
    /// pic_parameter_set_id (0...255).
    public var id: Int
    /// seq_parameter_set_id (0...31) of the SPS this PPS refers to.
    public var spsId: Int
    /// entropy_coding_mode_flag: CABAC when true, CAVLC when false.
    public var entropyCodingMode: Bool
    /// bottom_field_pic_order_in_frame_present_flag: slices carry delta_pic_order_cnt_bottom / [1].
    public var bottomFieldPicOrderInFramePresent: Bool
    /// num_slice_groups_minus1 + 1 (1...8); more than one means FMO (Baseline/Extended only).
    public var numSliceGroups: Int
    /// slice_group_map_type (0...6) when numSliceGroups > 1.
    public var sliceGroupMapType: Int = 0
    /// SliceGroupChangeRate = slice_group_change_rate_minus1 + 1 for map types 3...5.
    public var sliceGroupChangeRate: Int = 1
    /// num_ref_idx_l0_default_active_minus1 + 1 (1...32).
    public var numRefIdxL0DefaultActive: Int
    /// num_ref_idx_l1_default_active_minus1 + 1 (1...32).
    public var numRefIdxL1DefaultActive: Int
    /// weighted_pred_flag: P/SP slices carry pred_weight_table().
    public var weightedPred: Bool
    /// weighted_bipred_idc (0...2): 1 means B slices carry pred_weight_table().
    public var weightedBipredIdc: Int
    /// 26 + pic_init_qp_minus26.
    public var picInitQp: Int
    /// 26 + pic_init_qs_minus26.
    public var picInitQs: Int
    /// chroma_qp_index_offset (−12...12).
    public var chromaQpIndexOffset: Int
    /// deblocking_filter_control_present_flag: slices carry disable_deblocking_filter_idc.
    public var deblockingFilterControlPresent: Bool
    /// constrained_intra_pred_flag.
    public var constrainedIntraPred: Bool
    /// redundant_pic_cnt_present_flag: slices carry redundant_pic_cnt.
    public var redundantPicCntPresent: Bool
    /// transform_8x8_mode_flag (false when the optional tail is absent).
    public var transform8x8Mode: Bool = false
    /// pic_scaling_matrix_present_flag (the lists are parsed and discarded).
    public var picScalingMatrixPresent: Bool = false
    /// second_chroma_qp_index_offset (equals chroma_qp_index_offset when the optional tail is absent).
    public var secondChromaQpIndexOffset: Int

    /// Parses a whole PPS NAL unit (header byte included, emulation prevention still present).
    ///
    /// - Parameter chromaFormatIdc: the referenced SPS's chroma_format_idc; it only decides how many 8x8
    ///   scaling lists a PPS with transform_8x8_mode_flag and a scaling matrix carries (6 for 4:4:4, else 2).
    public init(parsing nalUnit: some Collection<UInt8>, chromaFormatIdc: Int = 1) throws {
        let header = try NALUnitHeader(parsing: nalUnit)
        guard header.nalUnitType == .pictureParameterSet else {
            throw MediaFormatError.invalid(structure: "PPS", reason: "nal_unit_type \(header.nalUnitType.rawValue) is not 8")
        }
        var reader = BitReader(EmulationPrevention.removing(from: nalUnit.dropFirst()))
        id = try Self.readBounded(&reader, "pic_parameter_set_id", 255)
        spsId = try Self.readBounded(&reader, "seq_parameter_set_id", 31)
        entropyCodingMode = try reader.readFlag()
        bottomFieldPicOrderInFramePresent = try reader.readFlag()
        numSliceGroups = 1 + (try Self.readBounded(&reader, "num_slice_groups_minus1", 7))
        if numSliceGroups > 1 {
            sliceGroupMapType = try Self.readBounded(&reader, "slice_group_map_type", 6)
            sliceGroupChangeRate = try Self.skipSliceGroupMap(&reader, mapType: sliceGroupMapType, numSliceGroups: numSliceGroups)
        }
        numRefIdxL0DefaultActive = 1 + (try Self.readBounded(&reader, "num_ref_idx_l0_default_active_minus1", 31))
        numRefIdxL1DefaultActive = 1 + (try Self.readBounded(&reader, "num_ref_idx_l1_default_active_minus1", 31))
        weightedPred = try reader.readFlag()
        weightedBipredIdc = Int(try reader.readBits(2))
        guard weightedBipredIdc <= 2 else {
            throw MediaFormatError.invalid(structure: "PPS", reason: "weighted_bipred_idc 3")
        }
        picInitQp = 26 + Int(try reader.readSE())
        picInitQs = 26 + Int(try reader.readSE())
        chromaQpIndexOffset = Int(try reader.readSE())
        guard (-12...12).contains(chromaQpIndexOffset) else {
            throw MediaFormatError.invalid(structure: "PPS", reason: "chroma_qp_index_offset \(chromaQpIndexOffset) outside -12...12")
        }
        deblockingFilterControlPresent = try reader.readFlag()
        constrainedIntraPred = try reader.readFlag()
        redundantPicCntPresent = try reader.readFlag()
        secondChromaQpIndexOffset = chromaQpIndexOffset
        if reader.moreRBSPData() {
            transform8x8Mode = try reader.readFlag()
            picScalingMatrixPresent = try reader.readFlag()
            if picScalingMatrixPresent {
                let count = 6 + (transform8x8Mode ? (chromaFormatIdc != 3 ? 2 : 6) : 0)
                try ScalingList.skipLists(&reader, count: count)
            }
            secondChromaQpIndexOffset = Int(try reader.readSE())
            guard (-12...12).contains(secondChromaQpIndexOffset) else {
                throw MediaFormatError.invalid(
                    structure: "PPS", reason: "second_chroma_qp_index_offset \(secondChromaQpIndexOffset) outside -12...12")
            }
        }
        guard try reader.readFlag() else {
            throw MediaFormatError.invalid(structure: "PPS", reason: "rbsp_stop_one_bit missing")
        }
    }

    /// Reads past the slice-group map fields (FMO) after slice_group_map_type; returns SliceGroupChangeRate.
    private static func skipSliceGroupMap(_ reader: inout BitReader, mapType: Int, numSliceGroups: Int) throws -> Int {
        switch mapType {
        case 0:
            for _ in 0..<numSliceGroups { _ = try reader.readUE() }  // run_length_minus1[iGroup]
        case 2:
            for _ in 0..<(numSliceGroups - 1) {
                _ = try reader.readUE()  // top_left[iGroup]
                _ = try reader.readUE()  // bottom_right[iGroup]
            }
        case 3, 4, 5:
            _ = try reader.readFlag()  // slice_group_change_direction_flag
            return 1 + Int(try reader.readUE())
        case 6:
            let picSizeInMapUnits = 1 + Int(try reader.readUE())
            // slice_group_id[i] is Ceil(Log2(num_slice_groups_minus1 + 1)) bits.
            var bits = 0
            while (1 << bits) < numSliceGroups { bits += 1 }
            // Checked up front so a hostile count cannot spin a long loop over missing bits.
            guard picSizeInMapUnits * bits <= reader.bitsRemaining else {
                throw MediaFormatError.truncated(needed: (picSizeInMapUnits * bits + 7) / 8, available: reader.bitsRemaining / 8)
            }
            try reader.skipBits(picSizeInMapUnits * bits)
        default:
            break  // type 1 (dispersed) carries nothing more
        }
        return 1
    }

    /// A ue(v) value checked against its semantic upper bound.
    private static func readBounded(_ reader: inout BitReader, _ name: String, _ maximum: Int) throws -> Int {
        let value = Int(try reader.readUE())
        guard value <= maximum else {
            throw MediaFormatError.invalid(structure: "PPS", reason: "\(name) \(value) above \(maximum)")
        }
        return value
    }

    /// pic_parameter_set_id and seq_parameter_set_id of a PPS NAL unit, read without parsing the rest.
    public static func ids(ofNALUnit nalUnit: some Collection<UInt8>) throws -> (id: Int, spsId: Int) {
        // Two ue(v) of at most 17 and 11 bits, plus the header and emulation prevention, fit in 12 bytes.
        var reader = BitReader(EmulationPrevention.removing(from: nalUnit.prefix(12)))
        try reader.skipBits(8)
        let id = try readBounded(&reader, "pic_parameter_set_id", 255)
        let spsId = try readBounded(&reader, "seq_parameter_set_id", 31)
        return (id, spsId)
    }
}
