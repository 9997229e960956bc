// ISO/IEC 13818-7 §6.2 adts_frame(): concatenated frames, each a header plus aac_frame_length − header bytes.

/// One ADTS frame found in a buffer: its header and where its payload (one raw_data_block) lies.
public struct ADTSFrame: Sendable, Equatable {
    /// The parsed header.
    public let header: ADTSHeader
    /// Indices of the whole frame (header included) in the scanned buffer.
    public let frameRange: Range<Int>
    /// Indices of the payload after the 7- or 9-byte header.
    public let payloadRange: Range<Int>
}

/// Walks concatenated ADTS frames (a `.aac` file, or a packet holding header + payload). Frames are not
/// resynchronised: bytes that do not start with a valid header are an error naming their offset.
public struct ADTSFrameScanner: Sendable {
    /// At the next frame; it advances only past whole frames.
    private var reader: ByteReader

    /// Scans `bytes` from the start.
    public init(_ bytes: [UInt8]) { self.init(bytes[...]) }

    /// Scans `bytes` from its start index; ranges returned are indices into it.
    public init(_ bytes: ArraySlice<UInt8>) { reader = ByteReader(bytes) }

    /// The buffer being scanned.
    public var bytes: ArraySlice<UInt8> { reader.bytes }
    /// Index in `bytes` of the next frame.
    public var index: Int { reader.index }

    /// Bytes not yet returned as frames (a partial frame at the end of a chunk of a file).
    public var remaining: ArraySlice<UInt8> { bytes[index...] }

    /// The next frame, nil at the end of the buffer; a partial frame throws `.truncated` without advancing.
    public mutating func next() throws -> ADTSFrame? {
        guard !reader.isAtEnd else { return nil }
        let available = reader.remaining
        let header: ADTSHeader
        do {
            header = try ADTSHeader(parsing: bytes[index...])
        } catch let MediaFormatError.invalid(structure, reason) {
            throw MediaFormatError.invalid(
                structure: structure, reason: "\(reason) at offset \(reader.offset)")
        }
        guard header.numberOfRawDataBlocks == 0 else {
            throw MediaFormatError.unsupported(
                structure: "ADTS frame",
                reason: "number_of_raw_data_blocks_in_frame is \(header.numberOfRawDataBlocks) at offset "
                    + "\(reader.offset); only frames holding a single raw data block are supported")
        }
        guard available >= header.frameLength else {
            throw MediaFormatError.truncated(needed: header.frameLength, available: available)
        }
        let frame = ADTSFrame(
            header: header,
            frameRange: index..<(index + header.frameLength),
            payloadRange: (index + header.headerLength)..<(index + header.frameLength))
        try reader.skip(header.frameLength)
        return frame
    }

    /// Every frame in `bytes`, which must hold whole frames only.
    public static func frames(in bytes: [UInt8]) throws -> [ADTSFrame] {
        var scanner = ADTSFrameScanner(bytes)
        var frames: [ADTSFrame] = []
        while let frame = try scanner.next() { frames.append(frame) }
        return frames
    }
}
