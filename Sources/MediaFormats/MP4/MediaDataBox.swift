// ISO/IEC 14496-12 (2022) §8.1.1 Media Data Box ('mdat'): the samples' bytes, which the `trun` boxes of the `moof`
// before it point into. Over 4 GiB − 9 bytes of samples its header takes the 64-bit largesize (§4.2).

/// `mdat` holding sample payloads one after another.
public struct MediaDataBox: MP4Box {
    /// The payloads, in the order the `trun` entries list them.
    public var payloads: [ArraySlice<UInt8>]

    public var boxType: MP4FourCC { "mdat" }

    /// A box of `payloads`.
    public init(payloads: [ArraySlice<UInt8>]) { self.payloads = payloads }

    public var payloadSize: Int { payloads.reduce(0) { $0 + $1.count } }

    /// 8 bytes, or 16 when the samples need the largesize.
    public var headerSize: Int { MP4BoxHeader.size(forPayload: payloadSize) }

    public func writePayload(into out: inout [UInt8]) {
        for payload in payloads { out.append(contentsOf: payload) }
    }
}
