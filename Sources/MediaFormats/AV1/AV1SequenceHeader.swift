// AV1 Bitstream & Decoding Process Specification §5.5.1 sequence_header_obu() and §6.4 semantics: read through
// color_config() and film_grain_params_present (the whole OBU).

/// The fields of a sequence header OBU that Sluice uses.
public struct AV1SequenceHeader: Hashable, Sendable {
    /// seq_profile: 0 Main, 1 High, 2 Professional.
    public var seqProfile: UInt8
    /// still_picture.
    public var stillPicture: Bool
    /// reduced_still_picture_header.
    public var reducedStillPictureHeader: Bool
    /// timing_info(): num_units_in_display_tick and time_scale; nil when absent.
    public var timing: Timing?
    /// The operating points, the first being the one decoders choose by default.
    public var operatingPoints: [OperatingPoint]
    /// max_frame_width_minus_1 + 1, max_frame_height_minus_1 + 1.
    public var maxFrameWidth: Int
    public var maxFrameHeight: Int
    /// frame_id_numbers_present_flag (frame headers then carry frame ids).
    public var frameIdNumbersPresent: Bool
    /// color_config().
    public var colorConfig: AV1ColorConfig
    /// film_grain_params_present.
    public var filmGrainParamsPresent: Bool

    /// One operating point: which layers it decodes, its level and tier.
    public struct OperatingPoint: Hashable, Sendable {
        /// operating_point_idc (12 bits: temporal layers in the low 8, spatial layers in the top 4).
        public var idc: UInt16
        /// seq_level_idx (0 is level 2.0; 31 is "maximum parameters").
        public var levelIdx: UInt8
        /// seq_tier (only for levels above 3.3).
        public var tier: Bool
    }

    /// timing_info().
    public struct Timing: Hashable, Sendable {
        public var numUnitsInDisplayTick: UInt32
        public var timeScale: UInt32
        /// num_ticks_per_picture_minus_1 + 1 when equal_picture_interval is set.
        public var ticksPerPicture: UInt64?
    }

    /// Profiles 3...7 are reserved.
    public static let maxProfile: UInt8 = 2

    private static let structure = "AV1 sequence header"

    /// Frames per second when timing_info says every picture lasts the same.
    public var frameRate: Double? {
        guard let timing, let ticks = timing.ticksPerPicture, timing.numUnitsInDisplayTick > 0 else { return nil }
        return Double(timing.timeScale) / (Double(timing.numUnitsInDisplayTick) * Double(ticks))
    }

    /// Parses the payload of a sequence header OBU (after obu_header and obu_size).
    public init(parsing payload: ArraySlice<UInt8>) throws {
        var r = BitReader(payload)
        seqProfile = UInt8(try r.readBits(3))
        guard seqProfile <= Self.maxProfile else {
            throw MediaFormatError.unsupported(structure: Self.structure, reason: "seq_profile \(seqProfile)")
        }
        stillPicture = try r.readFlag()
        reducedStillPictureHeader = try r.readFlag()
        timing = nil
        if reducedStillPictureHeader {
            operatingPoints = [OperatingPoint(idc: 0, levelIdx: UInt8(try r.readBits(5)), tier: false)]
        } else {
            var decoderModelInfoPresent = false
            var bufferDelayLength = 0
            if try r.readFlag() {  // timing_info_present_flag
                let tick = try r.readBits(32)
                let scale = try r.readBits(32)
                let equalPictureInterval = try r.readFlag()
                timing = Timing(numUnitsInDisplayTick: tick, timeScale: scale,
                                ticksPerPicture: equalPictureInterval ? try Self.readUVLC(&r) + 1 : nil)
                decoderModelInfoPresent = try r.readFlag()
                if decoderModelInfoPresent {
                    bufferDelayLength = Int(try r.readBits(5)) + 1
                    // num_units_in_decoding_tick, buffer_removal_time_length_minus_1, frame_presentation_time_length_minus_1.
                    try r.skipBits(32 + 5 + 5)
                }
            }
            let initialDisplayDelayPresent = try r.readFlag()
            let count = Int(try r.readBits(5)) + 1
            var points: [OperatingPoint] = []
            for _ in 0..<count {
                let idc = UInt16(try r.readBits(12))
                let level = UInt8(try r.readBits(5))
                let tier = level > 7 ? try r.readFlag() : false
                if decoderModelInfoPresent, try r.readFlag() {
                    // operating_parameters_info(): decoder and encoder buffer delays, low_delay_mode_flag.
                    try r.skipBits(2 * bufferDelayLength + 1)
                }
                if initialDisplayDelayPresent, try r.readFlag() { try r.skipBits(4) }
                points.append(OperatingPoint(idc: idc, levelIdx: level, tier: tier))
            }
            operatingPoints = points
        }
        let widthBits = Int(try r.readBits(4)) + 1
        let heightBits = Int(try r.readBits(4)) + 1
        maxFrameWidth = Int(try r.readBits(widthBits)) + 1
        maxFrameHeight = Int(try r.readBits(heightBits)) + 1
        frameIdNumbersPresent = reducedStillPictureHeader ? false : try r.readFlag()
        if frameIdNumbersPresent { try r.skipBits(4 + 3) }
        // use_128x128_superblock, enable_filter_intra, enable_intra_edge_filter.
        try r.skipBits(3)
        if !reducedStillPictureHeader {
            // enable_interintra_compound, enable_masked_compound, enable_warped_motion, enable_dual_filter.
            try r.skipBits(4)
            let enableOrderHint = try r.readFlag()
            if enableOrderHint { try r.skipBits(2) }  // enable_jnt_comp, enable_ref_frame_mvs
            let forceScreenContentTools = try r.readFlag() ? 2 : Int(try r.readBits(1))
            if forceScreenContentTools > 0, try !r.readFlag() {
                try r.skipBits(1)  // seq_force_integer_mv
            }
            if enableOrderHint { try r.skipBits(3) }  // order_hint_bits_minus_1
        }
        // enable_superres, enable_cdef, enable_restoration.
        try r.skipBits(3)
        colorConfig = try AV1ColorConfig(parsing: &r, seqProfile: seqProfile)
        filmGrainParamsPresent = try r.readFlag()
    }

    /// uvlc() (§4.10.3): 32 or more leading zeros mean 2^32 − 1.
    private static func readUVLC(_ r: inout BitReader) throws -> UInt64 {
        var leadingZeros = 0
        while try !r.readFlag() { leadingZeros += 1 }
        guard leadingZeros < 32 else { return UInt64(UInt32.max) }
        return UInt64(try r.readBits(leadingZeros)) + (UInt64(1) << leadingZeros) - 1
    }
}
