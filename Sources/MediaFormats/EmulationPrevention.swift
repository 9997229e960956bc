/// Emulation prevention (ITU-T H.264 §7.4.1): inside a NAL unit, `00 00 03` stands for `00 00`.
/// Parsers read RBSP, so they call `removingEmulationPrevention` first; nothing here adds the bytes back
/// because Sluice never rewrites slice data.
public enum EmulationPrevention {
    /// The RBSP of a NAL unit payload: every `0x03` that follows two zero bytes is dropped.
    public static func removing<C: Collection<UInt8>>(from bytes: C) -> [UInt8] {
        var rbsp: [UInt8] = []
        rbsp.reserveCapacity(bytes.count)
        var zeros = 0
        for byte in bytes {
            if zeros >= 2 && byte == 0x03 {
                zeros = 0
                continue
            }
            zeros = byte == 0 ? zeros + 1 : 0
            rbsp.append(byte)
        }
        return rbsp
    }
}
