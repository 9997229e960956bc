// ITU-T G.711 (logarithmic PCM, A-law and µ-law), as RFC 3551 §4.5.14 carries it (PCMA, PCMU): one octet per sample,
// channels interleaved.

/// The two companding laws of G.711: what a camera's PCMA and PCMU streams carry.
public enum G711Law: Sendable, Equatable {
    case aLaw
    case muLaw

    /// The law's name in a job's log.
    public var name: String {
        switch self {
        case .aLaw: "G.711 A-law"
        case .muLaw: "G.711 µ-law"
        }
    }

    /// The linear 16-bit sample a code stands for (G.711 Tables 1 and 2, scaled to 16 bits as 13- and 14-bit decoders
    /// are: A-law's 13-bit values times 8, µ-law's 14-bit values times 4).
    public func decode(_ code: UInt8) -> Int16 {
        switch self {
        case .aLaw: G711Law.aLawTable[Int(code)]
        case .muLaw: G711Law.muLawTable[Int(code)]
        }
    }

    /// Every code decoded, interleaved channels kept as they are.
    public func decode(_ codes: some Collection<UInt8>) -> [Int16] {
        let table = self == .aLaw ? G711Law.aLawTable : G711Law.muLawTable
        return codes.map { table[Int($0)] }
    }

    /// A-law: even bits inverted (XOR 0x55); a sign bit (1 is positive), a 3-bit segment and a 4-bit step. The step's
    /// value sits in the middle of its interval: (2 step + 1), doubled with each segment above the first, which also
    /// adds the segment's base of 32 half-steps.
    private static let aLawTable: [Int16] = (0...255).map { code -> Int16 in
        let value = code ^ 0x55
        let step = value & 0x0F
        let segment = (value >> 4) & 0x07
        let magnitude = segment == 0 ? (2 * step + 1) << 3 : (2 * step + 33) << (segment + 2)
        return Int16(value & 0x80 != 0 ? magnitude : -magnitude)
    }

    /// µ-law: all bits inverted; a sign bit (1 is negative), a 3-bit segment and a 4-bit step, biased by 0x84 (33 in
    /// 14-bit steps) so every segment doubles the one before.
    private static let muLawTable: [Int16] = (0...255).map { code -> Int16 in
        let value = ~code & 0xFF
        let biased = (((value & 0x0F) << 3) + 0x84) << ((value >> 4) & 0x07)
        return Int16(value & 0x80 != 0 ? 0x84 - biased : biased - 0x84)
    }
}
