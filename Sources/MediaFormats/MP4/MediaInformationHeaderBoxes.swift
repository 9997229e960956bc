// ISO/IEC 14496-12 (2022) §12.1.2 Video Media Header Box ('vmhd') and §12.2.2 Sound Media Header Box ('smhd'): the
// media-type header each `minf` starts with. Both carry only defaults here.

/// `vmhd`: graphics mode copy, no opcolor.
public struct VideoMediaHeaderBox: MP4Box, Equatable {
    /// flags must be 1 (§12.1.2.1).
    static let flags: UInt32 = 0x000001
    /// FullBox fields + graphicsmode + opcolor[3].
    static let payloadSize = 12

    public var boxType: MP4FourCC { "vmhd" }
    public var payloadSize: Int { Self.payloadSize }

    /// The header.
    public init() {}

    public func writePayload(into out: inout [UInt8]) {
        MP4BoxHeader.writeFullBoxFields(version: 0, flags: Self.flags, into: &out)
        out.append(contentsOf: repeatElement(0, count: 8))  // graphicsmode 0 (copy) + opcolor {0, 0, 0}
    }
}

/// `smhd`: centre balance.
public struct SoundMediaHeaderBox: MP4Box, Equatable {
    /// FullBox fields + balance + reserved.
    static let payloadSize = 8

    public var boxType: MP4FourCC { "smhd" }
    public var payloadSize: Int { Self.payloadSize }

    /// The header.
    public init() {}

    public func writePayload(into out: inout [UInt8]) {
        MP4BoxHeader.writeFullBoxFields(version: 0, flags: 0, into: &out)
        out.appendUInt32(0)  // balance 0 (centre) + reserved
    }
}
