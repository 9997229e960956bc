// ITU-T H.265 (v8, 08/2021) §7.3.3 profile_tier_level(profilePresentFlag, maxNumSubLayersMinus1), as an SPS or VPS
// carries it with profilePresentFlag 1: the general profile, tier and level, then sub-layer entries (skipped).

/// The general part of profile_tier_level, which the HEVCDecoderConfigurationRecord copies.
public struct HEVCProfileTierLevel: Hashable, Sendable {
    /// general_profile_space (0...3).
    public var profileSpace: UInt8
    /// general_tier_flag: false Main tier, true High tier.
    public var tierFlag: Bool
    /// general_profile_idc (1 Main, 2 Main 10, 3 Main Still Picture, 4 format range extensions …).
    public var profileIdc: UInt8
    /// general_profile_compatibility_flag[0...31], flag j in bit 31 − j.
    public var profileCompatibilityFlags: UInt32
    /// The 48 bits from general_progressive_source_flag to general_inbld_flag (hvcC's general_constraint_indicator_flags).
    public var constraintIndicatorFlags: UInt64
    /// general_level_idc: 30 × the level number (level 4.1 is 123).
    public var levelIdc: UInt8

    /// Bits of the constraint indicator flags.
    static let constraintIndicatorBits = 48
    /// Sub-layer profile fields (profile_space … inbld): 2 + 1 + 5 + 32 + 48 bits.
    static let subLayerProfileBits = 88
    /// Sub-layer level: sub_layer_level_idc.
    static let subLayerLevelBits = 8
    /// profile_tier_level carries 8 sub-layer flag pairs once there is more than one sub-layer.
    static let maxSubLayerFlagPairs = 8

    /// Fields from their values.
    public init(profileSpace: UInt8, tierFlag: Bool, profileIdc: UInt8, profileCompatibilityFlags: UInt32,
                constraintIndicatorFlags: UInt64, levelIdc: UInt8) {
        self.profileSpace = profileSpace
        self.tierFlag = tierFlag
        self.profileIdc = profileIdc
        self.profileCompatibilityFlags = profileCompatibilityFlags
        self.constraintIndicatorFlags = constraintIndicatorFlags
        self.levelIdc = levelIdc
    }

    /// Reads profile_tier_level(1, maxNumSubLayersMinus1) from an RBSP bit reader.
    init(parsing reader: inout BitReader, maxNumSubLayersMinus1: Int) throws {
        profileSpace = UInt8(try reader.readBits(2))
        tierFlag = try reader.readFlag()
        profileIdc = UInt8(try reader.readBits(5))
        profileCompatibilityFlags = try reader.readBits(32)
        constraintIndicatorFlags = UInt64(try reader.readBits(16)) << 32 | UInt64(try reader.readBits(32))
        levelIdc = UInt8(try reader.readBits(8))
        var profilePresent: [Bool] = []
        var levelPresent: [Bool] = []
        for _ in 0..<maxNumSubLayersMinus1 {
            profilePresent.append(try reader.readFlag())
            levelPresent.append(try reader.readFlag())
        }
        if maxNumSubLayersMinus1 > 0 {
            // reserved_zero_2bits for the unused flag pairs up to 8.
            try reader.skipBits(2 * (Self.maxSubLayerFlagPairs - maxNumSubLayersMinus1))
        }
        for i in 0..<maxNumSubLayersMinus1 {
            if profilePresent[i] { try reader.skipBits(Self.subLayerProfileBits) }
            if levelPresent[i] { try reader.skipBits(Self.subLayerLevelBits) }
        }
    }
}
