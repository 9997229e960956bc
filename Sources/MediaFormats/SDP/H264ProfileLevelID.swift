// RFC 6184 §8.1 profile-level-id: profile_idc, profile-iop (constraint_set0..5 flags), level_idc as six hex digits; Table 5.

/// The H.264 profile and level an fmtp names, and whether a decoder of one decodes a stream of another.
public struct H264ProfileLevelID: Sendable, Equatable {
    /// RFC 6184 §8.1: absent means Baseline, level 1.0.
    public static let `default` = H264ProfileLevelID(profileIDC: 0x42, constraintFlags: 0x00, levelIDC: 10)

    public enum Profile: Sendable, Equatable {
        case constrainedBaseline, baseline, main, extended, high, constrainedHigh, high10, high422, high444
        case other(profileIDC: UInt8)
    }

    public var profileIDC: UInt8
    /// profile-iop: constraint_set0_flag in the top bit.
    public var constraintFlags: UInt8
    public var levelIDC: UInt8

    public init(profileIDC: UInt8, constraintFlags: UInt8, levelIDC: UInt8) {
        self.profileIDC = profileIDC
        self.constraintFlags = constraintFlags
        self.levelIDC = levelIDC
    }

    public init(parsing text: String) throws {
        let bytes = Array(text.utf8)
        // Clearing bit 5 upper-cases a...f; UInt32(radix:) alone would take a leading "+".
        let isHexDigit = { (byte: UInt8) in (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte & 0xDF) }
        guard bytes.count == 6, bytes.allSatisfy(isHexDigit), let value = UInt32(text, radix: 16) else {
            throw MediaFormatError.invalid(structure: "H.264 profile-level-id", reason: "\"\(text)\" is not six hex digits")
        }
        self.init(profileIDC: UInt8(truncatingIfNeeded: value >> 16), constraintFlags: UInt8(truncatingIfNeeded: value >> 8),
                  levelIDC: UInt8(truncatingIfNeeded: value))
    }

    /// The profile-level-id of an fmtp (names lowercased), the default when absent; nil when malformed.
    public init?(formatParameters: [String: String]) {
        guard let text = formatParameters["profile-level-id"] else { self = .default; return }
        guard let parsed = try? H264ProfileLevelID(parsing: text) else { return nil }
        self = parsed
    }

    /// Six lower-case hex digits.
    public var text: String {
        [profileIDC, constraintFlags, levelIDC].map { byte in
            let digits = String(byte, radix: 16)
            return byte < 0x10 ? "0" + digits : digits
        }.joined()
    }

    /// Table 5: constraint_set1 makes Baseline constrained, constraint_set0 does so for Main, both for Extended;
    /// constraint_set4 and 5 together make High constrained.
    public var profile: Profile {
        switch profileIDC {
        case 0x42: constraintFlags & 0x40 != 0 ? .constrainedBaseline : .baseline
        case 0x4D: constraintFlags & 0x80 != 0 ? .constrainedBaseline : .main
        case 0x58: constraintFlags & 0xC0 == 0xC0 ? .constrainedBaseline : .extended
        case 0x64: constraintFlags & 0x0C == 0x0C ? .constrainedHigh : .high
        case 0x6E: .high10
        case 0x7A: .high422
        case 0xF4: .high444
        default: .other(profileIDC: profileIDC)
        }
    }

    /// level_idc × 10, with level 1b (level_idc 11 and constraint_set3 in Baseline, Main, Extended) between 1.0 and 1.1.
    public var levelOrder: Int {
        let oneB = levelIDC == 11 && constraintFlags & 0x10 != 0 && [0x42, 0x4D, 0x58].contains(profileIDC)
        return oneB ? 105 : Int(levelIDC) * 10
    }

    /// Whether a decoder announced as `self` decodes a stream of `stream`'s profile: every profile decodes Constrained
    /// Baseline; Baseline streams without FMO or ASO (all an encoder of ours makes) go to Baseline and Constrained
    /// Baseline decoders, as browsers treat them; High decoders take Main; the rest need their own profile. Levels are
    /// `levelOrder`'s business.
    public func decodesProfile(of stream: H264ProfileLevelID) -> Bool {
        let highFamily: [Profile] = [.high, .high10, .high422, .high444]
        switch stream.profile {
        case .constrainedBaseline: return true
        case .baseline: return [.baseline, .constrainedBaseline, .extended].contains(profile)
        case .main: return profile == .main || highFamily.contains(profile)
        case .constrainedHigh: return profile == .constrainedHigh || highFamily.contains(profile)
        case .high: return highFamily.contains(profile)
        case .high10: return [.high10, .high422, .high444].contains(profile)
        case .high422: return [.high422, .high444].contains(profile)
        case .high444, .extended, .other: return profile == stream.profile
        }
    }
}
