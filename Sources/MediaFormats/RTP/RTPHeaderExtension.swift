// RFC 3550 §5.3.1 RTP header extension.

/// The header extension after the CSRC list: a 16-bit profile-defined value, then data in 32-bit words
/// (the one-byte and two-byte forms of RFC 8285 are profiles of it; their elements are read by their users).
public struct RTPHeaderExtension: Sendable, Equatable {
    /// The length field counts 32-bit words in 16 bits.
    public static let maxDataSize = Int(UInt16.max) * 4

    /// "defined by profile": 0xBEDE for RFC 8285's one-byte form.
    public var profile: UInt16
    /// The extension data, a multiple of 4 octets.
    public var data: [UInt8]

    public init(profile: UInt16, data: [UInt8]) {
        precondition(data.count % 4 == 0 && data.count <= Self.maxDataSize, "extension data is whole 32-bit words")
        self.profile = profile
        self.data = data
    }

    /// The extension at the reader; short input throws `.truncated` and leaves the reader where it was.
    init(reading reader: inout ByteReader) throws {
        var probe = reader
        profile = try probe.readUInt16()
        let words = Int(try probe.readUInt16())
        data = Array(try probe.readBytes(words * 4))
        reader = probe
    }

    func write(into output: inout [UInt8]) {
        output.appendUInt16(profile)
        output.appendUInt16(UInt16(data.count / 4))
        output.append(contentsOf: data)
    }
}
