// Adobe Flash Video File Format Specification v10.1, §E.2 header, §E.3 body (PreviousTagSize chain), §E.4.1 tags.

/// An incremental FLV reader: feed it bytes as they arrive and take whole tags out. It validates every
/// PreviousTagSize against the tag it follows, and advances only past whole tags (+ their PreviousTagSize).
public struct FLVReader: Sendable {
    private var buffer: [UInt8] = []
    /// Index in `buffer` of the next unread byte.
    private var readIndex = 0
    /// Stream offset of `buffer[0]` (bytes already dropped from the front).
    private var droppedCount = 0
    /// Consumed bytes are dropped from the front only past this, so compaction stays amortised O(1).
    private static let compactionThreshold = 64 * 1024

    /// The FLV header, once read.
    public private(set) var header: FLVHeader?

    /// An empty reader.
    public init() {}

    /// Stream offset of the next unread byte.
    public var offset: Int { droppedCount + readIndex }
    /// Bytes received but not yet returned as part of a tag (non-zero at the end of a cut-off file).
    public var bufferedByteCount: Int { buffer.count - readIndex }

    /// Adds bytes received from the stream.
    public mutating func append(_ bytes: some Collection<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// The next tag, or nil when more bytes are needed. Reads the header (and PreviousTagSize0) first.
    public mutating func nextTag() throws -> FLVTag? {
        if header == nil {
            guard try readFileHeader() else { return nil }
        }
        let available = buffer.count - readIndex
        guard available >= FLVLimits.tagHeaderSize else { return nil }
        var reader = ByteReader(buffer[readIndex..<(readIndex + FLVLimits.tagHeaderSize)])
        let tagHeader: FLVTagHeader
        do {
            tagHeader = try FLVTagHeader(parsing: &reader)
        } catch let MediaFormatError.unsupported(structure, reason) {
            throw MediaFormatError.unsupported(structure: structure, reason: "\(reason) at offset \(offset)")
        }
        let tagSize = FLVLimits.tagHeaderSize + tagHeader.dataSize
        guard available >= tagSize + FLVLimits.previousTagSizeSize else { return nil }
        let dataStart = readIndex + FLVLimits.tagHeaderSize
        var sizeReader = ByteReader(buffer[(readIndex + tagSize)..<(readIndex + tagSize + FLVLimits.previousTagSizeSize)])
        let previousTagSize = Int(try sizeReader.readUInt32())
        guard previousTagSize == tagSize else {
            throw MediaFormatError.invalid(
                structure: "FLV PreviousTagSize",
                reason: "at offset \(offset + tagSize) it is \(previousTagSize), but the tag before it "
                    + "(offset \(offset)) is \(FLVLimits.tagHeaderSize) + \(tagHeader.dataSize) = \(tagSize) bytes")
        }
        let tag = FLVTag(
            header: tagHeader, data: Array(buffer[dataStart..<(dataStart + tagHeader.dataSize)]), offset: offset)
        readIndex += tagSize + FLVLimits.previousTagSizeSize
        compactIfWorthwhile()
        return tag
    }

    /// Reads the header and PreviousTagSize0 once both are buffered; false when more bytes are needed.
    private mutating func readFileHeader() throws -> Bool {
        var reader = ByteReader(buffer[readIndex...])
        let parsed: FLVHeader
        do {
            parsed = try FLVHeader(parsing: &reader)
        } catch MediaFormatError.truncated {
            // A wrong signature is reported as soon as its bytes are in, not after all nine.
            let prefix = buffer[readIndex...].prefix(FLVLimits.signature.count)
            guard FLVLimits.signature.starts(with: prefix) else {
                throw MediaFormatError.invalid(structure: "FLV header", reason: "signature is not \"FLV\"")
            }
            return false
        }
        let bodyStart = parsed.dataOffset + FLVLimits.previousTagSizeSize
        guard buffer.count - readIndex >= bodyStart else { return false }
        var sizeReader = ByteReader(buffer[(readIndex + parsed.dataOffset)..<(readIndex + bodyStart)])
        let previousTagSize0 = try sizeReader.readUInt32()
        guard previousTagSize0 == 0 else {
            throw MediaFormatError.invalid(
                structure: "FLV PreviousTagSize",
                reason: "PreviousTagSize0 at offset \(offset + parsed.dataOffset) is \(previousTagSize0), not 0")
        }
        readIndex += bodyStart
        header = parsed
        return true
    }

    private mutating func compactIfWorthwhile() {
        guard readIndex >= Self.compactionThreshold, readIndex * 2 >= buffer.count else { return }
        buffer.removeSubrange(0..<readIndex)
        droppedCount += readIndex
        readIndex = 0
    }
}
