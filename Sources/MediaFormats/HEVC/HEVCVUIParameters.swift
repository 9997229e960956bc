// ITU-T H.265 (v8, 08/2021) §E.2.1 vui_parameters(), read up to the timing information (the HRD parameters and the
// bitstream restrictions after it are not needed by Sluice and are not read).

/// The VUI fields of an SPS up to vui_timing_info.
public struct HEVCVUIParameters: Hashable, Sendable {
    /// Sample aspect ratio (sar_width, sar_height): from aspect_ratio_idc's table or EXTENDED_SAR; nil when absent.
    public var sampleAspectRatio: SampleAspectRatio?
    /// video_full_range_flag (false when video_signal_type is absent).
    public var videoFullRange: Bool
    /// colour_primaries, transfer_characteristics, matrix_coeffs; nil when absent.
    public var colourDescription: ColourDescription?
    /// vui_num_units_in_tick and vui_time_scale; nil when absent.
    public var timing: Timing?

    /// colour_description (H.273 code points).
    public struct ColourDescription: Hashable, Sendable {
        public var colourPrimaries: UInt8
        public var transferCharacteristics: UInt8
        public var matrixCoefficients: UInt8
    }

    /// vui_timing_info: a picture lasts numUnitsInTick / timeScale seconds.
    public struct Timing: Hashable, Sendable {
        public var numUnitsInTick: UInt32
        public var timeScale: UInt32
    }

    /// sar_width : sar_height.
    public struct SampleAspectRatio: Hashable, Sendable {
        public var width: UInt16
        public var height: UInt16
    }

    /// aspect_ratio_idc of EXTENDED_SAR (explicit sar_width and sar_height).
    static let extendedSAR: UInt32 = 255
    /// Table E.1, aspect_ratio_idc 1...16.
    static let sampleAspectRatios: [(UInt16, UInt16)] = [
        (1, 1), (12, 11), (10, 11), (16, 11), (40, 33), (24, 11), (20, 11), (32, 11),
        (80, 33), (18, 11), (15, 11), (64, 33), (160, 99), (4, 3), (3, 2), (2, 1),
    ]

    /// Frames per second (timeScale / numUnitsInTick), when timing is present and nonzero.
    public var frameRate: Double? {
        guard let timing, timing.numUnitsInTick > 0, timing.timeScale > 0 else { return nil }
        return Double(timing.timeScale) / Double(timing.numUnitsInTick)
    }

    /// Reads vui_parameters() up to and including vui_timing_info (not vui_poc_proportional's tail or the HRD).
    init(parsing reader: inout BitReader) throws {
        sampleAspectRatio = nil
        if try reader.readFlag() {
            let idc = try reader.readBits(8)
            if idc == Self.extendedSAR {
                sampleAspectRatio = SampleAspectRatio(width: UInt16(try reader.readBits(16)), height: UInt16(try reader.readBits(16)))
            } else if (1...Self.sampleAspectRatios.count).contains(Int(idc)) {
                let ratio = Self.sampleAspectRatios[Int(idc) - 1]
                sampleAspectRatio = SampleAspectRatio(width: ratio.0, height: ratio.1)
            }
        }
        if try reader.readFlag() { _ = try reader.readFlag() }  // overscan_info_present → overscan_appropriate
        videoFullRange = false
        colourDescription = nil
        if try reader.readFlag() {  // video_signal_type_present_flag
            _ = try reader.readBits(3)  // video_format
            videoFullRange = try reader.readFlag()
            if try reader.readFlag() {
                colourDescription = ColourDescription(
                    colourPrimaries: UInt8(try reader.readBits(8)), transferCharacteristics: UInt8(try reader.readBits(8)),
                    matrixCoefficients: UInt8(try reader.readBits(8)))
            }
        }
        if try reader.readFlag() {  // chroma_loc_info_present_flag
            _ = try reader.readUE()
            _ = try reader.readUE()
        }
        // neutral_chroma_indication_flag, field_seq_flag, frame_field_info_present_flag.
        try reader.skipBits(3)
        if try reader.readFlag() {  // default_display_window_flag: four offsets
            for _ in 0..<4 { _ = try reader.readUE() }
        }
        timing = nil
        if try reader.readFlag() {
            timing = Timing(numUnitsInTick: try reader.readBits(32), timeScale: try reader.readBits(32))
        }
    }
}
