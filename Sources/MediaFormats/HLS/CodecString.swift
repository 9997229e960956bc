// RFC 6381 §3 codecs parameter, as HLS's CODECS attribute carries it (RFC 8216bis §4.4.6.2): ISO/IEC 14496-15
// (2019) §5.4.1 for avc1/avc3 and Annex E.3 for hvc1/hev1; the AV1 Codec ISO Media File Format Binding §5 for av01;
// the VP Codec ISO Media File Format Binding for vp09; RFC 6381 §3.3 for mp4a; Opus in ISOBMFF §4.3 for Opus.

/// The RFC 6381 codec strings of the configurations MediaFormats parses.
public enum CodecString {
    /// `avc1.PPCCLL`: profile_idc, the constraint_set flags byte and level_idc in hex, as the avcC copies them from the SPS.
    public static func avc(_ record: AVCDecoderConfigurationRecord, sampleEntry: String = "avc1") -> String {
        sampleEntry + "." + [record.profileIndication, record.profileCompatibility, record.levelIndication]
            .map { hex($0, width: 2) }.joined()
    }

    /// `hvc1.[A-C]<profile_idc>.<compatibility flags, bits reversed, hex>.<L|H><level_idc>[.<constraint byte>…]`,
    /// the six constraint bytes in hex with trailing zero bytes dropped (Annex E.3).
    public static func hevc(_ profile: HEVCProfileTierLevel, sampleEntry: String = "hvc1") -> String {
        let space = profile.profileSpace == 0 ? "" : String(UnicodeScalar(UInt8(ascii: "A") + profile.profileSpace - 1))
        var text = sampleEntry + "." + space + String(profile.profileIdc)
        // general_profile_compatibility_flag[j] is bit 31 − j; the string wants flag j in bit j.
        text += "." + String(reversingBits(profile.profileCompatibilityFlags), radix: 16, uppercase: true)
        text += "." + (profile.tierFlag ? "H" : "L") + String(profile.levelIdc)
        var bytes = (0..<6).map { UInt8(truncatingIfNeeded: profile.constraintIndicatorFlags >> (40 - 8 * $0)) }
        while bytes.last == 0 { bytes.removeLast() }
        for byte in bytes { text += "." + String(byte, radix: 16, uppercase: true) }
        return text
    }

    /// The HEVC string of an hvcC record (its general profile, tier and level fields).
    public static func hevc(_ record: HEVCDecoderConfigurationRecord, sampleEntry: String = "hvc1") -> String {
        hevc(record.profileTierLevel, sampleEntry: sampleEntry)
    }

    /// `av01.P.LLT.DD`: seq_profile, seq_level_idx[0] in two digits, tier M or H, bit depth in two digits (the
    /// optional colour fields are left out, which the binding allows when they are the defaults a player assumes).
    public static func av1(_ record: AV1CodecConfigurationRecord) -> String {
        let bitDepth = record.highBitdepth ? (record.twelveBit ? 12 : 10) : 8
        return "av01.\(record.seqProfile)." + decimal(Int(record.seqLevelIdx0), width: 2) + (record.seqTier0 ? "H" : "M")
            + "." + decimal(bitDepth, width: 2)
    }

    /// `vp09.PP.LL.DD`: profile, level and bit depth, two decimal digits each.
    public static func vp9(_ record: VPCodecConfigurationRecord) -> String { vpx("vp09", record) }

    /// `vp08.PP.LL.DD`, as VP9's (the VP Codec ISO Media File Format Binding names both alike).
    public static func vp8(_ record: VPCodecConfigurationRecord) -> String { vpx("vp08", record) }

    private static func vpx(_ fourCC: String, _ record: VPCodecConfigurationRecord) -> String {
        fourCC + "." + [Int(record.profile), Int(record.level), Int(record.bitDepth)].map { decimal($0, width: 2) }
            .joined(separator: ".")
    }

    /// `mp4a.40.<audio object type>`. HE-AAC is named for what it carries: 29 when PS is signalled, 5 when SBR is,
    /// however it is signalled (hierarchically, or backward-compatibly behind an AAC-LC type 2).
    public static func aac(_ config: AudioSpecificConfig) -> String {
        let objectType: Int
        if config.psPresent == true {
            objectType = AudioObjectType.ps
        } else if config.sbrPresent == true {
            objectType = AudioObjectType.sbr
        } else {
            objectType = config.objectType
        }
        return "mp4a.40.\(objectType)"
    }

    /// Opus in MP4: FFmpeg's hlsenc and browsers' MediaSource use the lower-case form.
    public static let opus = "opus"

    private static func reversingBits(_ value: UInt32) -> UInt32 {
        var result: UInt32 = 0
        for bit in 0..<32 where value & (1 << bit) != 0 { result |= 1 << (31 - bit) }
        return result
    }

    private static func hex(_ byte: UInt8, width: Int) -> String {
        let digits = String(byte, radix: 16)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private static func decimal(_ value: Int, width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}

extension CodecString {
    /// The string of an MP4 track's sample entry, as an init segment declares it (`hvc1`, since the fMP4 writer
    /// keeps HEVC parameter sets in hvcC).
    public static func track(_ track: MP4Track) -> String {
        switch track.codec {
        case let .avc(record): avc(record)
        case let .hevc(record): hevc(record)
        case let .av1(record): av1(record)
        case let .vp9(record, _, _): vp9(record)
        case let .vp8(record, _, _): vp8(record)
        case let .aac(config): aac(config)
        case .opus: opus
        }
    }
}
