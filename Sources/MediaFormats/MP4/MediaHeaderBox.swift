// ISO/IEC 14496-12 (2022) §8.4.2 Media Header Box ('mdhd'), version 0: the track's timescale, in which every sample
// time and duration of the track is counted, and its language (ISO 639-2/T, three 5-bit letters).

/// `mdhd`: the media timescale and language.
public struct MediaHeaderBox: MP4Box, Equatable {
    /// Units per second of the track's decode times and durations.
    public var timescale: UInt32
    /// The packed language: each of three lowercase letters minus 0x60 in 5 bits.
    public var language: UInt16

    /// "und" (undetermined), packed.
    public static let undetermined = packLanguage("und")
    /// FullBox fields + times, timescale, duration (32 bits each) + language + pre_defined.
    static let version0PayloadSize = 24

    public var boxType: MP4FourCC { "mdhd" }

    /// A header from its fields.
    public init(timescale: UInt32, language: UInt16 = Self.undetermined) {
        self.timescale = timescale
        self.language = language
    }

    /// Parses a version 0 or 1 payload.
    public init(parsing payload: ArraySlice<UInt8>) throws {
        var box = try MP4FullBoxPayload(payload)
        try box.reader.skip(box.version == 1 ? 16 : 8)  // creation_time, modification_time
        timescale = try box.reader.readUInt32()
        try box.reader.skip(box.version == 1 ? 8 : 4)  // duration
        language = try box.reader.readUInt16() & 0x7FFF
    }

    /// Three lowercase ASCII letters as the 15-bit language code; used for constants written in the source.
    public static func packLanguage(_ code: StaticString) -> UInt16 {
        precondition(code.utf8CodeUnitCount == 3, "a language code has three letters")
        var packed: UInt16 = 0
        for index in 0..<3 {
            let letter = code.utf8Start[index]
            precondition((0x61...0x7A).contains(letter), "a language code is lowercase letters")
            packed = packed << 5 | UInt16(letter - 0x60)
        }
        return packed
    }

    public var payloadSize: Int { Self.version0PayloadSize }

    public func writePayload(into out: inout [UInt8]) {
        MP4BoxHeader.writeFullBoxFields(version: 0, flags: 0, into: &out)
        out.appendUInt32(0)  // creation_time
        out.appendUInt32(0)  // modification_time
        out.appendUInt32(timescale)
        out.appendUInt32(0)  // duration: fragmented
        out.appendUInt16(language & 0x7FFF)  // 1 bit pad (0) + 15 bits language
        out.appendUInt16(0)  // pre_defined
    }
}
