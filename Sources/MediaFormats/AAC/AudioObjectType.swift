// ISO/IEC 14496-3 §1.5.1.1, Table 1.1 (Audio Object Types) and §1.6.2.1 GetAudioObjectType().

/// MPEG-4 audio object type numbers and names, and the escape form used to code them.
public enum AudioObjectType {
    /// AAC Main.
    public static let aacMain = 1
    /// AAC LC (low complexity), the usual AAC.
    public static let aacLC = 2
    /// AAC SSR (scalable sample rate).
    public static let aacSSR = 3
    /// AAC LTP (long term prediction).
    public static let aacLTP = 4
    /// SBR: HE-AAC when signalled explicitly (hierarchical signalling).
    public static let sbr = 5
    /// ER AAC LD (low delay).
    public static let erAACLD = 23
    /// PS: HE-AAC v2 when signalled explicitly (hierarchical signalling).
    public static let ps = 29
    /// The 5-bit value that announces a 6-bit extension: the type is then 32 + those 6 bits.
    public static let escape = 31
    /// ER AAC ELD (enhanced low delay), only codable with the escape form.
    public static let erAACELD = 39
    /// The largest type the escape form can code (31 + 1 + 63).
    public static let maximum = 95
    /// The object types an ADTS header's 2-bit profile field can carry (profile = type − 1).
    public static let adtsCarriable: ClosedRange<Int> = 1...4

    /// The name Table 1.1 gives `type`, for error messages and `sluice probe`.
    public static func name(of type: Int) -> String {
        switch type {
        case 0: return "Null"
        case 1: return "AAC Main"
        case 2: return "AAC LC"
        case 3: return "AAC SSR"
        case 4: return "AAC LTP"
        case 5: return "SBR"
        case 6: return "AAC Scalable"
        case 7: return "TwinVQ"
        case 8: return "CELP"
        case 9: return "HVXC"
        case 12: return "TTSI"
        case 13: return "Main synthetic"
        case 14: return "Wavetable synthesis"
        case 15: return "General MIDI"
        case 16: return "Algorithmic Synthesis and Audio FX"
        case 17: return "ER AAC LC"
        case 19: return "ER AAC LTP"
        case 20: return "ER AAC scalable"
        case 21: return "ER TwinVQ"
        case 22: return "ER BSAC"
        case 23: return "ER AAC LD"
        case 24: return "ER CELP"
        case 25: return "ER HVXC"
        case 26: return "ER HILN"
        case 27: return "ER Parametric"
        case 28: return "SSC"
        case 29: return "PS"
        case 30: return "MPEG Surround"
        case 32: return "Layer-1"
        case 33: return "Layer-2"
        case 34: return "Layer-3"
        case 35: return "DST"
        case 36: return "ALS"
        case 37: return "SLS"
        case 38: return "SLS non-core"
        case 39: return "ER AAC ELD"
        case 40: return "SMR Simple"
        case 41: return "SMR Main"
        case 42: return "USAC"
        case 43: return "SAOC"
        case 44: return "LD MPEG Surround"
        case 45: return "SAOC-DE"
        default: return "reserved"
        }
    }

    /// GetAudioObjectType(): 5 bits, or 31 followed by 6 bits meaning 32 + value.
    static func read(from bits: inout BitReader) throws -> Int {
        let type = Int(try bits.readBits(5))
        guard type == escape else { return type }
        return 32 + Int(try bits.readBits(6))
    }

    /// Writes `type` in the shortest form GetAudioObjectType() reads back.
    static func write(_ type: Int, into bits: inout BitWriter) {
        precondition((0...maximum).contains(type), "audio object type must be 0...95")
        if type < escape {
            bits.write(UInt32(type), bits: 5)
        } else {
            bits.write(UInt32(escape), bits: 5)
            bits.write(UInt32(type - 32), bits: 6)
        }
    }
}
