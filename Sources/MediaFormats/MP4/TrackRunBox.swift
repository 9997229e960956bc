// ISO/IEC 14496-12 (2022) §8.8.8 Track Run Box ('trun'): a run of contiguous samples, their data at data_offset from
// the base (the `moof`, with default-base-is-moof). Written as version 1, whose composition offsets are signed, with
// every per-sample field present; read with whatever tr_flags announce.

/// `trun`: per-sample duration, size, flags and composition time offset.
public struct TrackRunBox: MP4Box, Equatable {
    /// One sample of the run.
    public struct Entry: Sendable, Equatable {
        /// sample_duration, in the track timescale.
        public let duration: UInt32
        /// sample_size, in bytes.
        public let size: UInt32
        /// sample_flags (sync or not).
        public let flags: MP4SampleFlags
        /// sample_composition_time_offset: PTS − DTS in the track timescale; negative only in version 1.
        public let compositionTimeOffset: Int32
    }

    /// data_offset: from the base data offset to the first sample's bytes.
    public var dataOffset: Int32?
    /// first_sample_flags, when present (read only; the writer gives every sample its flags).
    public var firstSampleFlags: MP4SampleFlags?
    /// The samples; a field tr_flags leaves out reads as 0.
    public var entries: [Entry]
    /// tr_flags: which fields are present.
    public var flags: UInt32
    public var version: UInt8

    /// tr_flags bits.
    public static let dataOffsetPresent: UInt32 = 0x000001
    public static let firstSampleFlagsPresent: UInt32 = 0x000004
    public static let sampleDurationPresent: UInt32 = 0x000100
    public static let sampleSizePresent: UInt32 = 0x000200
    public static let sampleFlagsPresent: UInt32 = 0x000400
    public static let sampleCompositionTimeOffsetsPresent: UInt32 = 0x000800
    /// What the writer sets: a data offset and all four per-sample fields.
    public static let writtenFlags = dataOffsetPresent | sampleDurationPresent | sampleSizePresent | sampleFlagsPresent
        | sampleCompositionTimeOffsetsPresent
    /// Bytes per sample with all four fields.
    static let entrySize = 16
    /// FullBox fields + sample_count + data_offset.
    static let writtenFixedSize = 12
    /// A run whose samples all take the defaults costs no bytes per sample; a parse lists at most this many of them.
    public static let maxSamplesWithoutFields = 1 << 16

    public var boxType: MP4FourCC { "trun" }

    /// The run the writer writes: version 1, `dataOffset` and `entries`.
    public init(dataOffset: Int32, entries: [Entry]) {
        self.dataOffset = dataOffset
        self.firstSampleFlags = nil
        self.entries = entries
        self.flags = Self.writtenFlags
        self.version = 1
    }

    /// Parses a payload of either version with any tr_flags.
    public init(parsing payload: ArraySlice<UInt8>) throws {
        let box = try MP4FullBoxPayload(payload)
        var reader = box.reader
        let (version, flags) = (box.version, box.flags)
        self.version = version
        self.flags = flags
        let count = Int(try reader.readUInt32())
        dataOffset = flags & Self.dataOffsetPresent != 0 ? Int32(bitPattern: try reader.readUInt32()) : nil
        firstSampleFlags = flags & Self.firstSampleFlagsPresent != 0 ? MP4SampleFlags(rawValue: try reader.readUInt32()) : nil
        let fields = [Self.sampleDurationPresent, Self.sampleSizePresent, Self.sampleFlagsPresent,
                      Self.sampleCompositionTimeOffsetsPresent].filter { flags & $0 != 0 }.count
        // The count comes from the file: check it against the bytes there before reserving anything.
        if fields == 0 {
            guard count <= Self.maxSamplesWithoutFields else {
                throw MediaFormatError.limitExceeded(what: "trun sample_count without per-sample fields", value: count,
                                                     limit: Self.maxSamplesWithoutFields)
            }
        } else if count > reader.remaining / (4 * fields) {
            throw MediaFormatError.truncated(needed: count * 4 * fields, available: reader.remaining)
        }
        entries = []
        entries.reserveCapacity(count)
        for _ in 0..<count {
            let duration = flags & Self.sampleDurationPresent != 0 ? try reader.readUInt32() : 0
            let size = flags & Self.sampleSizePresent != 0 ? try reader.readUInt32() : 0
            let sampleFlags = flags & Self.sampleFlagsPresent != 0 ? try reader.readUInt32() : 0
            var offset: Int32 = 0
            if flags & Self.sampleCompositionTimeOffsetsPresent != 0 {
                let raw = try reader.readUInt32()
                guard version != 0 || raw <= UInt32(Int32.max) else {
                    throw MediaFormatError.unsupported(structure: "trun", reason: "version 0 composition offset \(raw)")
                }
                offset = Int32(bitPattern: raw)
            }
            entries.append(Entry(duration: duration, size: size, flags: MP4SampleFlags(rawValue: sampleFlags),
                                 compositionTimeOffset: offset))
        }
    }

    public var payloadSize: Int { Self.writtenFixedSize + Self.entrySize * entries.count }

    public func writePayload(into out: inout [UInt8]) throws {
        guard flags == Self.writtenFlags, version == 1, let dataOffset else {
            throw MediaFormatError.unsupported(structure: "trun", reason: "writing tr_flags 0x\(String(flags, radix: 16))")
        }
        guard entries.count <= Int(UInt32.max) else {
            throw MediaFormatError.limitExceeded(what: "trun sample_count", value: entries.count, limit: Int(UInt32.max))
        }
        MP4BoxHeader.writeFullBoxFields(version: 1, flags: Self.writtenFlags, into: &out)
        out.appendUInt32(UInt32(entries.count))
        out.appendUInt32(UInt32(bitPattern: dataOffset))
        for entry in entries {
            out.appendUInt32(entry.duration)
            out.appendUInt32(entry.size)
            out.appendUInt32(entry.flags.rawValue)
            out.appendUInt32(UInt32(bitPattern: entry.compositionTimeOffset))
        }
    }
}
