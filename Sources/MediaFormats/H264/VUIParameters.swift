// ITU-T H.264 (08/2021) Annex E, §E.1.1 VUI parameters syntax, §E.2.1 semantics (Table E-1 for aspect_ratio_idc).

/// vui_parameters(): aspect ratio, colour description, timing, HRD and bitstream restrictions.
public struct VUIParameters: Equatable, Sendable {
    /// aspect_ratio_idc when aspect_ratio_info_present_flag is set (255 = Extended_SAR).
    public var aspectRatioIdc: Int?
    /// sar_width / sar_height from Table E-1 or the Extended_SAR fields; nil when unspecified.
    public var sampleAspectRatio: SampleAspectRatio?
    /// overscan_appropriate_flag when present.
    public var overscanAppropriate: Bool?
    /// video_format (3 bits) when video_signal_type_present_flag is set.
    public var videoFormat: Int?
    /// video_full_range_flag when present.
    public var videoFullRange: Bool?
    /// colour_primaries, transfer_characteristics, matrix_coefficients when colour_description_present_flag is set.
    public var colourDescription: ColourDescription?
    /// chroma_sample_loc_type_top_field when chroma_loc_info_present_flag is set.
    public var chromaSampleLocTypeTopField: Int?
    /// chroma_sample_loc_type_bottom_field when chroma_loc_info_present_flag is set.
    public var chromaSampleLocTypeBottomField: Int?
    /// num_units_in_tick, time_scale, fixed_frame_rate_flag when timing_info_present_flag is set.
    public var timing: Timing?
    /// nal_hrd_parameters() when present.
    public var nalHRD: HRDParameters?
    /// vcl_hrd_parameters() when present.
    public var vclHRD: HRDParameters?
    /// low_delay_hrd_flag when either HRD is present.
    public var lowDelayHRD: Bool?
    /// pic_struct_present_flag.
    public var picStructPresent: Bool
    /// bitstream_restriction fields when bitstream_restriction_flag is set.
    public var bitstreamRestriction: BitstreamRestriction?

    /// The shape of a sample (pixel), width:height.
    public struct SampleAspectRatio: Equatable, Sendable {
        /// sar_width.
        public var width: Int
        /// sar_height.
        public var height: Int
    }

    /// colour_description fields (Tables E-3, E-4, E-5).
    public struct ColourDescription: Equatable, Sendable {
        /// colour_primaries.
        public var colourPrimaries: Int
        /// transfer_characteristics.
        public var transferCharacteristics: Int
        /// matrix_coefficients.
        public var matrixCoefficients: Int
    }

    /// Timing information: one tick is num_units_in_tick / time_scale seconds, a frame is two ticks (E.2.1).
    public struct Timing: Equatable, Sendable {
        /// num_units_in_tick (nonzero).
        public var numUnitsInTick: UInt32
        /// time_scale (nonzero).
        public var timeScale: UInt32
        /// fixed_frame_rate_flag.
        public var fixedFrameRate: Bool
    }

    /// bitstream_restriction fields.
    public struct BitstreamRestriction: Equatable, Sendable {
        /// motion_vectors_over_pic_boundaries_flag.
        public var motionVectorsOverPicBoundaries: Bool
        /// max_bytes_per_pic_denom.
        public var maxBytesPerPicDenom: Int
        /// max_bits_per_mb_denom.
        public var maxBitsPerMbDenom: Int
        /// log2_max_mv_length_horizontal.
        public var log2MaxMvLengthHorizontal: Int
        /// log2_max_mv_length_vertical.
        public var log2MaxMvLengthVertical: Int
        /// max_num_reorder_frames: frames that may precede a frame in decoding order and follow it in output order.
        public var maxNumReorderFrames: Int
        /// max_dec_frame_buffering: DPB size in frames the stream needs.
        public var maxDecFrameBuffering: Int
    }

    /// Table E-1 sample aspect ratios for aspect_ratio_idc 1...16.
    static let sampleAspectRatios: [(Int, Int)] = [
        (1, 1), (12, 11), (10, 11), (16, 11), (40, 33), (24, 11), (20, 11), (32, 11),
        (80, 33), (18, 11), (15, 11), (64, 33), (160, 99), (4, 3), (3, 2), (2, 1),
    ]
    /// aspect_ratio_idc announcing explicit sar_width / sar_height.
    static let extendedSAR = 255
    /// DPB frames any level allows (Table A-1 MaxDpbFrames is at most 16): the bound for the restriction counts.
    static let maximumDPBFrames = 16

    /// Reads vui_parameters() from `reader` (positioned just after vui_parameters_present_flag).
    init(reading reader: inout BitReader) throws {
        if try reader.readFlag() {
            let idc = Int(try reader.readBits(8))
            aspectRatioIdc = idc
            if idc == Self.extendedSAR {
                let width = Int(try reader.readBits(16))
                let height = Int(try reader.readBits(16))
                sampleAspectRatio = SampleAspectRatio(width: width, height: height)
            } else if (1...16).contains(idc) {
                let (width, height) = Self.sampleAspectRatios[idc - 1]
                sampleAspectRatio = SampleAspectRatio(width: width, height: height)
            }
        }
        if try reader.readFlag() {
            overscanAppropriate = try reader.readFlag()
        }
        if try reader.readFlag() {
            videoFormat = Int(try reader.readBits(3))
            videoFullRange = try reader.readFlag()
            if try reader.readFlag() {
                colourDescription = ColourDescription(
                    colourPrimaries: Int(try reader.readBits(8)),
                    transferCharacteristics: Int(try reader.readBits(8)),
                    matrixCoefficients: Int(try reader.readBits(8))
                )
            }
        }
        if try reader.readFlag() {
            let top = Int(try reader.readUE())
            let bottom = Int(try reader.readUE())
            guard top <= 5, bottom <= 5 else {
                throw MediaFormatError.invalid(structure: "VUI", reason: "chroma_sample_loc_type above 5")
            }
            chromaSampleLocTypeTopField = top
            chromaSampleLocTypeBottomField = bottom
        }
        if try reader.readFlag() {
            let numUnitsInTick = try reader.readBits(32)
            let timeScale = try reader.readBits(32)
            let fixedFrameRate = try reader.readFlag()
            // Both must be greater than 0 (E.2.1); a zero is dropped rather than refused, as decoders do.
            if numUnitsInTick > 0 && timeScale > 0 {
                timing = Timing(numUnitsInTick: numUnitsInTick, timeScale: timeScale, fixedFrameRate: fixedFrameRate)
            }
        }
        if try reader.readFlag() { nalHRD = try HRDParameters(reading: &reader) }
        if try reader.readFlag() { vclHRD = try HRDParameters(reading: &reader) }
        if nalHRD != nil || vclHRD != nil {
            lowDelayHRD = try reader.readFlag()
        }
        picStructPresent = try reader.readFlag()
        if try reader.readFlag() {
            let motionVectorsOverPicBoundaries = try reader.readFlag()
            let maxBytesPerPicDenom = Int(try reader.readUE())
            let maxBitsPerMbDenom = Int(try reader.readUE())
            let log2Horizontal = Int(try reader.readUE())
            let log2Vertical = Int(try reader.readUE())
            let maxNumReorderFrames = Int(try reader.readUE())
            let maxDecFrameBuffering = Int(try reader.readUE())
            guard maxBytesPerPicDenom <= 16, maxBitsPerMbDenom <= 16, log2Horizontal <= 15, log2Vertical <= 15 else {
                throw MediaFormatError.invalid(structure: "VUI", reason: "bitstream_restriction value out of range")
            }
            guard maxDecFrameBuffering <= Self.maximumDPBFrames, maxNumReorderFrames <= maxDecFrameBuffering else {
                throw MediaFormatError.invalid(
                    structure: "VUI",
                    reason: "max_num_reorder_frames \(maxNumReorderFrames) / max_dec_frame_buffering \(maxDecFrameBuffering) out of range"
                )
            }
            bitstreamRestriction = BitstreamRestriction(
                motionVectorsOverPicBoundaries: motionVectorsOverPicBoundaries,
                maxBytesPerPicDenom: maxBytesPerPicDenom,
                maxBitsPerMbDenom: maxBitsPerMbDenom,
                log2MaxMvLengthHorizontal: log2Horizontal,
                log2MaxMvLengthVertical: log2Vertical,
                maxNumReorderFrames: maxNumReorderFrames,
                maxDecFrameBuffering: maxDecFrameBuffering
            )
        }
    }
}
