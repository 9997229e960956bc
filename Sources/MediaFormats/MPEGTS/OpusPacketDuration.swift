// RFC 6716 §3.1 The TOC byte (config → frame size, code → frame count) and §3.2.5 code 3 (frame count M in the
// second byte): how long an Opus packet plays, which timestamps the second and later packets of a PES.

/// The duration of an Opus packet from its TOC byte.
public enum OpusPacketDuration {
    /// Frame sizes in 48 kHz samples: SILK-only configs 0...11 (10, 20, 40, 60 ms), hybrid 12...15 (10, 20 ms),
    /// CELT-only 16...31 (2.5, 5, 10, 20 ms).
    static func frameSamples(config: UInt8) -> Int {
        switch config {
        case 0...11: [480, 960, 1920, 2880][Int(config % 4)]
        case 12...15: [480, 960][Int(config % 2)]
        default: [120, 240, 480, 960][Int(config % 4)]
        }
    }

    /// A packet may hold at most 120 ms of audio (§3.2.5).
    public static let maxSamples = 5760

    /// The packet's duration in 48 kHz samples; nil for an empty packet or a code 3 packet without its count byte.
    public static func samples(of packet: some Collection<UInt8>) -> Int? {
        var iterator = packet.makeIterator()
        guard let toc = iterator.next() else { return nil }
        let frames: Int
        switch toc & 0x03 {
        case 0: frames = 1
        case 1, 2: frames = 2
        default:
            guard let count = iterator.next() else { return nil }
            frames = Int(count & 0x3F)
        }
        return min(frames * frameSamples(config: toc >> 3), maxSamples)
    }

    /// The packet's duration in 90 kHz ticks (48 kHz samples × 90 / 48; every Opus frame size divides evenly).
    public static func ticks90kHz(of packet: some Collection<UInt8>) -> Int64? {
        samples(of: packet).map { Int64($0) * 90 / 48 }
    }
}
