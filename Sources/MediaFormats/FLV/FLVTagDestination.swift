// Adobe Flash Video File Format Specification v10.1, §E.3 FLV File Body: a tag is its 11-byte header, its data, and
// the PreviousTagSize after it.

/// Where `FLVWriter` puts the tags it builds: an FLV file's bytes (`[UInt8]`: header, data, PreviousTagSize), or one
/// message per tag for an RTMP publish (whose audio, video and data messages carry an FLV tag's data as it is). Either
/// way the tag's data is built once, by the writer.
public protocol FLVTagDestination {
    /// Appends one tag of `type` at `timestamp` (milliseconds modulo 2^32) whose data `writeData` appends to the buffer
    /// it is given. `dataSize`, when the caller knows it, is how much that will be. Data past the 24-bit DataSize, or a
    /// `writeData` that throws, throws and leaves nothing of the tag behind.
    mutating func appendTag(_ type: FLVTagType, timestamp: UInt32, dataSize: Int?,
                            _ writeData: (inout [UInt8]) throws -> Void) throws
}

/// FLV file bytes: each tag with its header and PreviousTagSize.
extension Array: FLVTagDestination where Element == UInt8 {
    public mutating func appendTag(_ type: FLVTagType, timestamp: UInt32, dataSize: Int?,
                                   _ writeData: (inout [UInt8]) throws -> Void) throws {
        let start = count
        do {
            if let dataSize {
                try FLVLimits.checkTagDataSize(dataSize)
                // Array.reserveCapacity grows to exactly the request, so calling it per tag on a buffer that keeps
                // growing would copy quadratically; grow geometrically instead, and only when needed.
                let needed = count + FLVLimits.tagHeaderSize + dataSize + FLVLimits.previousTagSizeSize
                if capacity < needed { reserveCapacity(Swift.max(needed, capacity * 2)) }
                FLVTagHeader(tagType: type, dataSize: dataSize, timestamp: timestamp).write(into: &self)
                try writeData(&self)
            } else {
                // The size is known once the data is written: a placeholder header, filled in after.
                append(contentsOf: repeatElement(0, count: FLVLimits.tagHeaderSize))
                try writeData(&self)
                let size = count - start - FLVLimits.tagHeaderSize
                try FLVLimits.checkTagDataSize(size)
                var header: [UInt8] = []
                FLVTagHeader(tagType: type, dataSize: size, timestamp: timestamp).write(into: &header)
                replaceSubrange(start..<(start + FLVLimits.tagHeaderSize), with: header)
            }
            appendUInt32(UInt32(count - start))
        } catch {
            removeSubrange(start...)
            throw error
        }
    }
}

extension FLVLimits {
    /// Throws when `size` bytes of tag data do not fit the 24-bit DataSize.
    public static func checkTagDataSize(_ size: Int) throws {
        guard size <= maxTagDataSize else {
            throw MediaFormatError.limitExceeded(what: "FLV tag data size", value: size, limit: maxTagDataSize)
        }
    }
}
