// ITU-T H.264 (08/2021) §7.3.3 Slice header syntax (with §7.3.3.1 ref_pic_list_modification,
// §7.3.3.2 pred_weight_table, §7.3.3.3 dec_ref_pic_marking), §7.4.3 semantics, Table 7-6 slice_type.

/// slice_type (Table 7-6), folded: values 5...9 mean the same type for every slice of the picture.
public enum SliceType: Int, Sendable, CaseIterable {
    /// P (0, 5).
    case p = 0
    /// B (1, 6).
    case b = 1
    /// I (2, 7).
    case i = 2
    /// SP (3, 8).
    case sp = 3
    /// SI (4, 9).
    case si = 4
}

/// slice_header(): the fields picture order count and access-unit detection need, read through to the end.
public struct SliceHeader: Equatable, Sendable {
    /// The NAL unit header of the slice (nal_ref_idc and IdrPicFlag matter to POC).
    public var nalUnitHeader: NALUnitHeader
    /// first_mb_in_slice: 0 for the first slice of a picture.
    public var firstMbInSlice: Int
    /// slice_type folded to 0...4.
    public var sliceType: SliceType
    /// slice_type ≥ 5: every slice of the picture has this type.
    public var sliceTypeIsUniform: Bool
    /// pic_parameter_set_id.
    public var ppsId: Int
    /// colour_plane_id when the SPS codes colour planes separately.
    public var colourPlaneId: Int?
    /// frame_num.
    public var frameNum: Int
    /// field_pic_flag.
    public var fieldPic: Bool = false
    /// bottom_field_flag.
    public var bottomField: Bool = false
    /// idr_pic_id for IDR slices.
    public var idrPicId: Int?
    /// pic_order_cnt_lsb (POC type 0).
    public var picOrderCntLsb: Int = 0
    /// delta_pic_order_cnt_bottom (POC type 0).
    public var deltaPicOrderCntBottom: Int = 0
    /// delta_pic_order_cnt[0] and [1] (POC type 1).
    public var deltaPicOrderCnt: [Int] = [0, 0]
    /// redundant_pic_cnt (0 when absent).
    public var redundantPicCnt: Int = 0
    /// direct_spatial_mv_pred_flag (B slices).
    public var directSpatialMvPred: Bool?
    /// num_ref_idx_l0_active_minus1 + 1 (from the slice or the PPS default; 0 for I/SI slices).
    public var numRefIdxL0Active: Int = 0
    /// num_ref_idx_l1_active_minus1 + 1 (B slices; 0 otherwise).
    public var numRefIdxL1Active: Int = 0
    /// no_output_of_prior_pics_flag (IDR slices).
    public var noOutputOfPriorPics: Bool = false
    /// long_term_reference_flag (IDR slices).
    public var longTermReference: Bool = false
    /// adaptive_ref_pic_marking_mode_flag (reference non-IDR slices).
    public var adaptiveRefPicMarkingMode: Bool = false
    /// A memory_management_control_operation equal to 5 is present: POC and frame_num restart after this picture.
    public var hasMemoryManagementControlOperation5: Bool = false
    /// cabac_init_idc (CABAC, non-I slices).
    public var cabacInitIdc: Int?
    /// slice_qp_delta.
    public var sliceQpDelta: Int = 0
    /// disable_deblocking_filter_idc (0 when absent).
    public var disableDeblockingFilterIdc: Int = 0

    /// Entries accepted in one modification or marking loop (32 references per list is the spec maximum).
    public static let maximumLoopEntries = 66
    /// Bytes of slice data de-emulated for a first attempt: headers are far shorter, slice data is not.
    static let headerPrefixLength = 256

    /// Parses the header of a coded slice NAL unit (types 1 and 5; header byte included, emulation prevention
    /// still present), looking its PPS and SPS up by id.
    public init(
        parsing nalUnit: some Collection<UInt8>,
        sequenceParameterSets: [Int: SequenceParameterSet],
        pictureParameterSets: [Int: PictureParameterSet]
    ) throws {
        let header = try NALUnitHeader(parsing: nalUnit)
        guard header.nalUnitType == .codedSliceNonIDR || header.nalUnitType == .codedSliceIDR else {
            throw MediaFormatError.unsupported(
                structure: "slice header", reason: "nal_unit_type \(header.nalUnitType.rawValue) is not a coded slice (1 or 5)")
        }
        let payload = nalUnit.dropFirst()
        do {
            var reader = BitReader(EmulationPrevention.removing(from: payload.prefix(Self.headerPrefixLength)))
            try self.init(reading: &reader, header: header, sequenceParameterSets, pictureParameterSets)
        } catch MediaFormatError.truncated(_, _) where payload.count > Self.headerPrefixLength {
            // A header longer than the prefix (big weight tables): read it again from the whole NAL unit.
            var reader = BitReader(EmulationPrevention.removing(from: payload))
            try self.init(reading: &reader, header: header, sequenceParameterSets, pictureParameterSets)
        }
    }

    private init(
        reading reader: inout BitReader,
        header: NALUnitHeader,
        _ spsById: [Int: SequenceParameterSet],
        _ ppsById: [Int: PictureParameterSet]
    ) throws {
        nalUnitHeader = header
        let isIDR = header.isIDR
        firstMbInSlice = Int(try reader.readUE())
        let rawSliceType = Int(try reader.readUE())
        guard rawSliceType <= 9, let type = SliceType(rawValue: rawSliceType % 5) else {
            throw MediaFormatError.invalid(structure: "slice header", reason: "slice_type \(rawSliceType) above 9")
        }
        sliceType = type
        sliceTypeIsUniform = rawSliceType >= 5
        if isIDR && type != .i && type != .si {
            throw MediaFormatError.invalid(structure: "slice header", reason: "IDR slice of type \(type)")
        }
        ppsId = Int(try reader.readUE())
        guard let pps = ppsById[ppsId] else {
            throw MediaFormatError.invalid(structure: "slice header", reason: "unknown pic_parameter_set_id \(ppsId)")
        }
        guard let sps = spsById[pps.spsId] else {
            throw MediaFormatError.invalid(structure: "slice header", reason: "unknown seq_parameter_set_id \(pps.spsId)")
        }
        if sps.separateColourPlane { colourPlaneId = Int(try reader.readBits(2)) }
        frameNum = Int(try reader.readBits(sps.log2MaxFrameNum))
        if !sps.frameMbsOnly {
            fieldPic = try reader.readFlag()
            if fieldPic { bottomField = try reader.readFlag() }
        }
        if isIDR {
            let id = Int(try reader.readUE())
            guard id <= 65535 else {
                throw MediaFormatError.invalid(structure: "slice header", reason: "idr_pic_id \(id) above 65535")
            }
            idrPicId = id
        }
        if sps.picOrderCntType == 0 {
            picOrderCntLsb = Int(try reader.readBits(sps.log2MaxPicOrderCntLsb))
            if pps.bottomFieldPicOrderInFramePresent && !fieldPic {
                deltaPicOrderCntBottom = Int(try reader.readSE())
            }
        }
        if sps.picOrderCntType == 1 && !sps.deltaPicOrderAlwaysZero {
            deltaPicOrderCnt[0] = Int(try reader.readSE())
            if pps.bottomFieldPicOrderInFramePresent && !fieldPic {
                deltaPicOrderCnt[1] = Int(try reader.readSE())
            }
        }
        if pps.redundantPicCntPresent {
            redundantPicCnt = Int(try reader.readUE())
            guard redundantPicCnt <= 127 else {
                throw MediaFormatError.invalid(structure: "slice header", reason: "redundant_pic_cnt \(redundantPicCnt) above 127")
            }
        }
        if type == .b { directSpatialMvPred = try reader.readFlag() }
        if type == .p || type == .sp || type == .b {
            numRefIdxL0Active = pps.numRefIdxL0DefaultActive
            numRefIdxL1Active = type == .b ? pps.numRefIdxL1DefaultActive : 0
            if try reader.readFlag() {  // num_ref_idx_active_override_flag
                // Field pictures may address up to 32 references per list, frames up to 16 (§7.4.3).
                let limit = fieldPic ? 32 : 16
                numRefIdxL0Active = 1 + Int(try reader.readUE())
                if type == .b { numRefIdxL1Active = 1 + Int(try reader.readUE()) }
                guard numRefIdxL0Active <= limit, numRefIdxL1Active <= limit else {
                    throw MediaFormatError.invalid(structure: "slice header", reason: "num_ref_idx_active above \(limit)")
                }
            }
        }
        try Self.skipRefPicListModification(&reader, type: type)
        if (pps.weightedPred && (type == .p || type == .sp)) || (pps.weightedBipredIdc == 1 && type == .b) {
            try skipPredWeightTable(&reader, chromaArrayType: sps.chromaArrayType, type: type)
        }
        if header.nalRefIdc != 0 {
            try readDecRefPicMarking(&reader, isIDR: isIDR)
        }
        if pps.entropyCodingMode && type != .i && type != .si {
            let idc = Int(try reader.readUE())
            guard idc <= 2 else {
                throw MediaFormatError.invalid(structure: "slice header", reason: "cabac_init_idc \(idc) above 2")
            }
            cabacInitIdc = idc
        }
        sliceQpDelta = Int(try reader.readSE())
        if type == .sp || type == .si {
            if type == .sp { _ = try reader.readFlag() }  // sp_for_switch_flag
            _ = try reader.readSE()  // slice_qs_delta
        }
        if pps.deblockingFilterControlPresent {
            disableDeblockingFilterIdc = Int(try reader.readUE())
            guard disableDeblockingFilterIdc <= 2 else {
                throw MediaFormatError.invalid(
                    structure: "slice header", reason: "disable_deblocking_filter_idc \(disableDeblockingFilterIdc) above 2")
            }
            if disableDeblockingFilterIdc != 1 {
                _ = try reader.readSE()  // slice_alpha_c0_offset_div2
                _ = try reader.readSE()  // slice_beta_offset_div2
            }
        }
        if pps.numSliceGroups > 1 && (3...5).contains(pps.sliceGroupMapType) {
            // slice_group_change_cycle: Ceil(Log2(PicSizeInMapUnits ÷ SliceGroupChangeRate + 1)) bits.
            let picSizeInMapUnits = sps.picWidthInMbs * sps.picHeightInMapUnits
            let rate = pps.sliceGroupChangeRate
            var bits = 0
            while (rate << bits) < picSizeInMapUnits + rate { bits += 1 }
            try reader.skipBits(bits)
        }
    }

    /// ref_pic_list_modification() (§7.3.3.1): read past, it does not affect POC.
    private static func skipRefPicListModification(_ reader: inout BitReader, type: SliceType) throws {
        let lists = type == .b ? 2 : (type == .i || type == .si ? 0 : 1)
        for _ in 0..<lists where try reader.readFlag() {
            var entries = 0
            while true {
                let idc = try reader.readUE()  // modification_of_pic_nums_idc
                if idc == 3 { break }
                guard idc <= 5 else {
                    throw MediaFormatError.invalid(structure: "ref_pic_list_modification", reason: "modification_of_pic_nums_idc \(idc)")
                }
                _ = try reader.readUE()  // abs_diff_pic_num_minus1, long_term_pic_num or abs_diff_view_idx_minus1
                entries += 1
                guard entries <= maximumLoopEntries else {
                    throw MediaFormatError.limitExceeded(what: "ref_pic_list_modification entries", value: entries, limit: maximumLoopEntries)
                }
            }
        }
    }

    /// pred_weight_table() (§7.3.3.2): read past.
    private func skipPredWeightTable(_ reader: inout BitReader, chromaArrayType: Int, type: SliceType) throws {
        let lumaLog2WeightDenom = try reader.readUE()
        guard lumaLog2WeightDenom <= 7 else {
            throw MediaFormatError.invalid(structure: "pred_weight_table", reason: "luma_log2_weight_denom \(lumaLog2WeightDenom) above 7")
        }
        if chromaArrayType != 0 {
            let chromaLog2WeightDenom = try reader.readUE()
            guard chromaLog2WeightDenom <= 7 else {
                throw MediaFormatError.invalid(
                    structure: "pred_weight_table", reason: "chroma_log2_weight_denom \(chromaLog2WeightDenom) above 7")
            }
        }
        for count in type == .b ? [numRefIdxL0Active, numRefIdxL1Active] : [numRefIdxL0Active] {
            for _ in 0..<count {
                if try reader.readFlag() {  // luma_weight_lX_flag
                    _ = try reader.readSE()
                    _ = try reader.readSE()
                }
                if chromaArrayType != 0, try reader.readFlag() {  // chroma_weight_lX_flag
                    for _ in 0..<4 { _ = try reader.readSE() }  // weight and offset for Cb and Cr
                }
            }
        }
    }

    /// dec_ref_pic_marking() (§7.3.3.3): records the IDR flags and whether MMCO 5 occurs.
    private mutating func readDecRefPicMarking(_ reader: inout BitReader, isIDR: Bool) throws {
        if isIDR {
            noOutputOfPriorPics = try reader.readFlag()
            longTermReference = try reader.readFlag()
            return
        }
        adaptiveRefPicMarkingMode = try reader.readFlag()
        guard adaptiveRefPicMarkingMode else { return }
        var entries = 0
        while true {
            let operation = try reader.readUE()  // memory_management_control_operation
            switch operation {
            case 0: return
            case 1: _ = try reader.readUE()  // difference_of_pic_nums_minus1
            case 2: _ = try reader.readUE()  // long_term_pic_num
            case 3:
                _ = try reader.readUE()  // difference_of_pic_nums_minus1
                _ = try reader.readUE()  // long_term_frame_idx
            case 4: _ = try reader.readUE()  // max_long_term_frame_idx_plus1
            case 5: hasMemoryManagementControlOperation5 = true
            case 6: _ = try reader.readUE()  // long_term_frame_idx
            default:
                throw MediaFormatError.invalid(structure: "dec_ref_pic_marking", reason: "memory_management_control_operation \(operation)")
            }
            entries += 1
            guard entries <= Self.maximumLoopEntries else {
                throw MediaFormatError.limitExceeded(what: "memory_management_control_operation entries", value: entries, limit: Self.maximumLoopEntries)
            }
        }
    }

    /// IdrPicFlag.
    public var isIDR: Bool { nalUnitHeader.isIDR }
    /// nal_ref_idc ≠ 0: the picture is used for reference.
    public var isReference: Bool { nalUnitHeader.nalRefIdc != 0 }
}
