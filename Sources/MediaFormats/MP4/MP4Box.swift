// ISO/IEC 14496-12 (2022) §4.2 Object structure: a box is a header and a payload; a container box's payload is its
// child boxes one after another (§8.1–§8.8 list which boxes contain which).

/// A box this module writes: its type, the size of its payload, and the payload's bytes. Sizes are known before
/// writing, so a `moof` can point into the `mdat` after it before either is written.
public protocol MP4Box: Sendable {
    /// The four-character type.
    var boxType: MP4FourCC { get }
    /// Bytes of payload `writePayload` appends (header excluded).
    var payloadSize: Int { get }
    /// Appends the payload (everything after the header).
    func writePayload(into out: inout [UInt8]) throws
}

extension MP4Box {
    /// The whole box: header and payload.
    public var size: Int { MP4BoxHeader.size(forPayload: payloadSize) + payloadSize }

    /// Appends the box. A call that throws appends nothing.
    public func write(into out: inout [UInt8]) throws {
        let start = out.count
        do {
            MP4BoxHeader(type: boxType, payloadSize: payloadSize).write(into: &out)
            try writePayload(into: &out)
        } catch {
            out.removeSubrange(start...)
            throw error
        }
        assert(out.count - start == size, "'\(boxType)' wrote \(out.count - start) bytes, its size says \(size)")
    }

    /// The box as bytes.
    public func serialized() throws -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(size)
        try write(into: &out)
        return out
    }
}

/// A box whose payload is only child boxes (`moov`, `trak`, `mdia`, `minf`, `dinf`, `stbl`, `mvex`, `moof`, `traf`).
public struct MP4ContainerBox: MP4Box {
    public var boxType: MP4FourCC
    /// The children, in file order.
    public var children: [any MP4Box]

    /// A container of `type` holding `children`.
    public init(_ type: MP4FourCC, _ children: [any MP4Box]) {
        self.boxType = type
        self.children = children
    }

    public var payloadSize: Int { children.reduce(0) { $0 + $1.size } }

    public func writePayload(into out: inout [UInt8]) throws {
        for child in children { try child.write(into: &out) }
    }
}

/// A box whose payload is bytes another type already wrote: a codec configuration record (`avcC`, `hvcC`, `av1C`)
/// is the same bytes in an MP4 box as in an FLV sequence header.
public struct MP4OpaqueBox: MP4Box, Equatable {
    public var boxType: MP4FourCC
    /// The payload, written as it is.
    public var payload: [UInt8]

    /// A box of `type` carrying `payload`.
    public init(_ type: MP4FourCC, payload: [UInt8]) {
        self.boxType = type
        self.payload = payload
    }

    public var payloadSize: Int { payload.count }

    public func writePayload(into out: inout [UInt8]) { out.append(contentsOf: payload) }
}
