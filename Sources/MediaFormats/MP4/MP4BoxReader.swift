// ISO/IEC 14496-12 (2022) §4.2 Object structure: boxes one after another, each sized by its header; the boxes listed
// in `MP4BoxReader.childOffsets` hold child boxes after a fixed number of their own bytes (§8.1–§8.8, §8.5.2, §12.1.3,
// §12.2.3).

/// One box read from a buffer: its header, where it lies, its payload and, for a container, its children.
public struct MP4BoxNode: Sendable, Equatable {
    public var header: MP4BoxHeader
    /// Where the whole box lies, as indices of the buffer read.
    public var range: Range<Int>
    /// The bytes after the header (sharing storage with the buffer read).
    public var payload: ArraySlice<UInt8>
    /// The child boxes of a container type; empty for other boxes.
    public var children: [MP4BoxNode]

    /// The box type.
    public var type: MP4FourCC { header.type }

    /// The first child of `type`.
    public func child(_ type: MP4FourCC) -> MP4BoxNode? { children.first { $0.type == type } }

    /// Every child of `type`, in file order.
    public func children(_ type: MP4FourCC) -> [MP4BoxNode] { children.filter { $0.type == type } }

    /// The box reached by following `path` from this one's children (the first match at each level).
    public func descendant(_ path: MP4FourCC...) -> MP4BoxNode? {
        var node = self
        for type in path {
            guard let next = node.child(type) else { return nil }
            node = next
        }
        return node
    }
}

/// Reads boxes from a buffer. Every size is checked against the bytes there: garbage throws, never traps.
public enum MP4BoxReader {
    /// Containers nest about six deep in practice; deeper input is refused before it can exhaust the stack.
    public static let maxDepth = 16
    /// Box types whose payload holds child boxes, and how many of the payload's bytes come before them.
    public static let childOffsets: [MP4FourCC: Int] = [
        "moov": 0, "trak": 0, "mdia": 0, "minf": 0, "dinf": 0, "stbl": 0, "mvex": 0, "moof": 0, "traf": 0,
        "edts": 0, "udta": 0, "mfra": 0,
        // FullBox fields + entry_count.
        "stsd": 8, "dref": 8,
        // SampleEntry + VisualSampleEntry fields.
        "avc1": VisualSampleEntry.fixedSize, "avc3": VisualSampleEntry.fixedSize, "hvc1": VisualSampleEntry.fixedSize,
        "hev1": VisualSampleEntry.fixedSize, "av01": VisualSampleEntry.fixedSize, "vp09": VisualSampleEntry.fixedSize,
        "vp08": VisualSampleEntry.fixedSize,
        // SampleEntry + AudioSampleEntry fields.
        "mp4a": AudioSampleEntry.fixedSize, "Opus": AudioSampleEntry.fixedSize,
    ]

    /// The boxes of `bytes`, with the children of container types read too.
    public static func boxes(in bytes: [UInt8]) throws -> [MP4BoxNode] {
        try boxes(in: bytes[...])
    }

    /// The boxes of `bytes` (its indices are kept in each node's `range`), with the children of container types.
    public static func boxes(in bytes: ArraySlice<UInt8>) throws -> [MP4BoxNode] {
        try boxes(in: bytes, depth: 0, readChildren: true)
    }

    /// The headers of the boxes at the top level of `bytes`, children not read.
    public static func topLevelBoxes(in bytes: ArraySlice<UInt8>) throws -> [MP4BoxNode] {
        try boxes(in: bytes, depth: 0, readChildren: false)
    }

    private static func boxes(in bytes: ArraySlice<UInt8>, depth: Int, readChildren: Bool) throws -> [MP4BoxNode] {
        var reader = ByteReader(bytes)
        var nodes: [MP4BoxNode] = []
        while !reader.isAtEnd {
            let start = reader.index
            let header = try MP4BoxHeader(parsing: &reader)
            let payloadSize: Int
            if let boxSize = header.boxSize {
                // boxSize ≥ headerSize was checked by the header; a size past the buffer is cut-off input.
                guard boxSize - UInt64(header.headerSize) <= UInt64(reader.remaining) else {
                    throw MediaFormatError.truncated(
                        needed: Int(clamping: boxSize - UInt64(header.headerSize)), available: reader.remaining)
                }
                payloadSize = Int(boxSize) - header.headerSize
            } else {
                payloadSize = reader.remaining
            }
            let payload = try reader.readBytes(payloadSize)
            var children: [MP4BoxNode] = []
            if readChildren, let offset = childOffsets[header.type] {
                guard depth < maxDepth else {
                    throw MediaFormatError.limitExceeded(what: "box nesting depth", value: depth + 1, limit: maxDepth)
                }
                guard payload.count >= offset else {
                    throw MediaFormatError.truncated(needed: offset, available: payload.count)
                }
                children = try boxes(in: payload.dropFirst(offset), depth: depth + 1, readChildren: true)
            }
            nodes.append(MP4BoxNode(header: header, range: start..<reader.index, payload: payload, children: children))
        }
        return nodes
    }
}
