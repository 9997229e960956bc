// ITU-T H.264 (08/2021) Annex E, §E.1.2 HRD parameters syntax, §E.2.2 semantics.

/// hrd_parameters(): parsed so the VUI fields after it land on the right bit; the schedule is kept for probes.
public struct HRDParameters: Equatable, Sendable {
    /// One coded picture buffer schedule (SchedSelIdx).
    public struct Schedule: Equatable, Sendable {
        /// bit_rate_value_minus1 + 1.
        public var bitRateValue: Int
        /// cpb_size_value_minus1 + 1.
        public var cpbSizeValue: Int
        /// cbr_flag.
        public var cbr: Bool
    }

    /// bit_rate_scale (4 bits).
    public var bitRateScale: Int
    /// cpb_size_scale (4 bits).
    public var cpbSizeScale: Int
    /// cpb_cnt_minus1 + 1 schedules (at most 32).
    public var schedules: [Schedule]
    /// initial_cpb_removal_delay_length_minus1 + 1.
    public var initialCpbRemovalDelayLength: Int
    /// cpb_removal_delay_length_minus1 + 1.
    public var cpbRemovalDelayLength: Int
    /// dpb_output_delay_length_minus1 + 1.
    public var dpbOutputDelayLength: Int
    /// time_offset_length.
    public var timeOffsetLength: Int

    /// Reads hrd_parameters() from `reader`; cpb_cnt_minus1 above 31 throws `.invalid`.
    init(reading reader: inout BitReader) throws {
        let cpbCntMinus1 = Int(try reader.readUE())
        guard cpbCntMinus1 <= 31 else {
            throw MediaFormatError.invalid(structure: "hrd_parameters", reason: "cpb_cnt_minus1 \(cpbCntMinus1) above 31")
        }
        bitRateScale = Int(try reader.readBits(4))
        cpbSizeScale = Int(try reader.readBits(4))
        schedules = []
        for _ in 0...cpbCntMinus1 {
            let bitRate = Int(try reader.readUE()) + 1
            let cpbSize = Int(try reader.readUE()) + 1
            let cbr = try reader.readFlag()
            schedules.append(Schedule(bitRateValue: bitRate, cpbSizeValue: cpbSize, cbr: cbr))
        }
        initialCpbRemovalDelayLength = Int(try reader.readBits(5)) + 1
        cpbRemovalDelayLength = Int(try reader.readBits(5)) + 1
        dpbOutputDelayLength = Int(try reader.readBits(5)) + 1
        timeOffsetLength = Int(try reader.readBits(5))
    }

    /// Bit rate of the first schedule in bit/s (E.2.2: (value) · 2^(6 + bit_rate_scale)).
    public var bitRate: Int? {
        schedules.first.map { $0.bitRateValue << (6 + bitRateScale) }
    }
}
