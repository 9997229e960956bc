// ISO/IEC 13818-1 (2019) §2.4.3.4 Adaptation field, Table 2-6 adaptation_field(), §2.4.3.5 semantics.

/// The adaptation field after a packet header: flags, PCR/OPCR, splice countdown, private data, stuffing.
public struct TSAdaptationField: Sendable, Equatable {
    /// adaptation_field_length can take the whole packet after the 4-byte header and the length byte itself.
    public static let maxLength = TSPacketHeader.packetSize - TSPacketHeader.size - 1
    /// The flags byte's length.
    static let flagsSize = 1
    /// Stuffing bytes are 0xFF.
    public static let stuffingByte: UInt8 = 0xFF

    /// discontinuity_indicator: the continuity counter or the PCR time base is discontinuous at this packet.
    public var discontinuityIndicator = false
    /// random_access_indicator: the next PES starts at a point where decoding can begin (a keyframe).
    public var randomAccessIndicator = false
    /// elementary_stream_priority_indicator.
    public var elementaryStreamPriorityIndicator = false
    /// program_clock_reference, when PCR_flag is set.
    public var pcr: ProgramClockReference?
    /// original_program_clock_reference, when OPCR_flag is set.
    public var originalPCR: ProgramClockReference?
    /// splice_countdown, when splicing_point_flag is set.
    public var spliceCountdown: Int8?
    /// transport_private_data, when transport_private_data_flag is set.
    public var transportPrivateData: [UInt8]?
    /// The bytes after adaptation_field_extension_length, when adaptation_field_extension_flag is set (kept as read).
    public var extensionBytes: [UInt8]?
    /// How many stuffing bytes followed the fields when parsed.
    public private(set) var stuffingCount = 0

    /// A field with the given flags and values.
    public init(discontinuityIndicator: Bool = false, randomAccessIndicator: Bool = false,
                pcr: ProgramClockReference? = nil) {
        self.discontinuityIndicator = discontinuityIndicator
        self.randomAccessIndicator = randomAccessIndicator
        self.pcr = pcr
    }

    /// The bytes `write` needs without stuffing, the length byte included (1 when there is nothing to say).
    public var minimumEncodedLength: Int {
        guard hasContent else { return 1 }
        return 1 + Self.flagsSize + (pcr == nil ? 0 : ProgramClockReference.encodedSize)
            + (originalPCR == nil ? 0 : ProgramClockReference.encodedSize) + (spliceCountdown == nil ? 0 : 1)
            + (transportPrivateData.map { 1 + $0.count } ?? 0) + (extensionBytes.map { 1 + $0.count } ?? 0)
    }

    /// Something beyond stuffing to write: a flag or an optional field.
    private var hasContent: Bool {
        discontinuityIndicator || randomAccessIndicator || elementaryStreamPriorityIndicator || pcr != nil
            || originalPCR != nil || spliceCountdown != nil || transportPrivateData != nil || extensionBytes != nil
    }

    /// Parses the field at the start of `bytes` (its adaptation_field_length byte first). Returns the field and the
    /// bytes it took, the length byte included.
    public static func parse(_ bytes: ArraySlice<UInt8>) throws -> (field: TSAdaptationField, encodedLength: Int) {
        var reader = ByteReader(bytes)
        let length = Int(try reader.readUInt8())
        guard length <= maxLength else {
            throw MediaFormatError.invalid(structure: "TS adaptation field", reason: "adaptation_field_length \(length) (at most \(maxLength))")
        }
        var field = TSAdaptationField()
        guard length > 0 else { return (field, 1) }
        var body = ByteReader(try reader.readBytes(length))
        let flags = try body.readUInt8()
        field.discontinuityIndicator = flags & 0x80 != 0
        field.randomAccessIndicator = flags & 0x40 != 0
        field.elementaryStreamPriorityIndicator = flags & 0x20 != 0
        if flags & 0x10 != 0 { field.pcr = try ProgramClockReference(parsing: try body.readBytes(ProgramClockReference.encodedSize)) }
        if flags & 0x08 != 0 { field.originalPCR = try ProgramClockReference(parsing: try body.readBytes(ProgramClockReference.encodedSize)) }
        if flags & 0x04 != 0 { field.spliceCountdown = Int8(bitPattern: try body.readUInt8()) }
        if flags & 0x02 != 0 { field.transportPrivateData = Array(try body.readBytes(Int(try body.readUInt8()))) }
        if flags & 0x01 != 0 { field.extensionBytes = Array(try body.readBytes(Int(try body.readUInt8()))) }
        field.stuffingCount = body.remaining
        return (field, 1 + length)
    }

    /// Appends the field padded with stuffing to exactly `encodedLength` bytes (length byte included), which must be
    /// at least `minimumEncodedLength` and at most 1 + `maxLength`.
    public func write(encodedLength: Int, into out: inout [UInt8]) {
        precondition(encodedLength >= minimumEncodedLength && encodedLength <= 1 + Self.maxLength,
                     "adaptation field length out of range")
        out.append(UInt8(encodedLength - 1))
        guard encodedLength > 1 else { return }
        let start = out.count
        out.append((discontinuityIndicator ? 0x80 : 0) | (randomAccessIndicator ? 0x40 : 0)
                   | (elementaryStreamPriorityIndicator ? 0x20 : 0) | (pcr == nil ? 0 : 0x10)
                   | (originalPCR == nil ? 0 : 0x08) | (spliceCountdown == nil ? 0 : 0x04)
                   | (transportPrivateData == nil ? 0 : 0x02) | (extensionBytes == nil ? 0 : 0x01))
        pcr?.write(into: &out)
        originalPCR?.write(into: &out)
        if let spliceCountdown { out.append(UInt8(bitPattern: spliceCountdown)) }
        if let transportPrivateData {
            out.append(UInt8(truncatingIfNeeded: transportPrivateData.count))
            out += transportPrivateData
        }
        if let extensionBytes {
            out.append(UInt8(truncatingIfNeeded: extensionBytes.count))
            out += extensionBytes
        }
        out.append(contentsOf: repeatElement(Self.stuffingByte, count: encodedLength - 1 - (out.count - start)))
    }
}
