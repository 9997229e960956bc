// ISO/IEC 14496-12 (2022) §8.4.3 Handler Reference Box ('hdlr'): the media type of a track ('vide', 'soun') and a
// human-readable name, a null-terminated UTF-8 string.

/// `hdlr`: what kind of media the track holds.
public struct HandlerBox: MP4Box, Equatable {
    public var handlerType: MP4FourCC
    /// The name, without its terminating zero.
    public var name: String

    /// Video track handler.
    public static let video: MP4FourCC = "vide"
    /// Audio track handler.
    public static let sound: MP4FourCC = "soun"
    /// FullBox fields + pre_defined + handler_type + 3 × 32 bits reserved.
    static let fixedSize = 24

    public var boxType: MP4FourCC { "hdlr" }

    /// A handler from its fields.
    public init(handlerType: MP4FourCC, name: String) {
        self.handlerType = handlerType
        self.name = name
    }

    /// Parses a payload; the handler type is all the tests need, the name is read up to its zero.
    public init(parsing payload: ArraySlice<UInt8>) throws {
        var box = try MP4FullBoxPayload(payload)
        try box.reader.skip(4)  // pre_defined
        handlerType = MP4FourCC(rawValue: try box.reader.readUInt32())
        try box.reader.skip(12)  // reserved
        name = String(decoding: box.reader.readRemaining().prefix { $0 != 0 }, as: UTF8.self)
    }

    public var payloadSize: Int { Self.fixedSize + name.utf8.count + 1 }

    public func writePayload(into out: inout [UInt8]) {
        MP4BoxHeader.writeFullBoxFields(version: 0, flags: 0, into: &out)
        out.appendUInt32(0)  // pre_defined
        out.appendFourCC(handlerType)
        out.append(contentsOf: repeatElement(0, count: 12))  // reserved
        out.append(contentsOf: name.utf8)
        out.append(0)
    }
}
