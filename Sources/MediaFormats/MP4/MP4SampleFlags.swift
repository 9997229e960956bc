// ISO/IEC 14496-12 (2022) §8.8.3.1 sample flags (in 'trex', 'tfhd' and 'trun'): 4 bits reserved, is_leading (2),
// sample_depends_on (2), sample_is_depended_on (2), sample_has_redundancy (2), sample_padding_value (3),
// sample_is_non_sync_sample (1), sample_degradation_priority (16).

/// The 32-bit sample flags.
public struct MP4SampleFlags: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt32

    /// sample_depends_on: 1 = depends on others (not an I picture), 2 = depends on no other (an I picture).
    public static let dependsOnOthers: UInt32 = 1
    public static let dependsOnNoOther: UInt32 = 2

    static let dependsOnShift: UInt32 = 24
    static let nonSyncBit: UInt32 = 1 << 16

    /// A flags value from its 32 bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// A sync sample (a keyframe, or any audio sample): depends on no other, not non-sync (0x02000000).
    public static let sync = MP4SampleFlags(rawValue: dependsOnNoOther << dependsOnShift)
    /// A non-sync sample: depends on others, non-sync (0x01010000).
    public static let nonSync = MP4SampleFlags(rawValue: dependsOnOthers << dependsOnShift | nonSyncBit)

    /// The flags for a sample that is (`true`) or is not a sync sample.
    public init(isSync: Bool) { self = isSync ? .sync : .nonSync }

    /// sample_depends_on (0 unknown, 1 yes, 2 no).
    public var sampleDependsOn: UInt32 { rawValue >> Self.dependsOnShift & 0x3 }
    /// sample_is_non_sync_sample.
    public var isNonSyncSample: Bool { rawValue & Self.nonSyncBit != 0 }

    public var description: String { "0x" + String(rawValue, radix: 16) }
}
