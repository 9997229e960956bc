// ISO/IEC 13818-1 (2019) §2.6 Program and program element descriptors (tag, length, data), §2.6.8
// registration_descriptor (format_identifier); ETSI EN 300 468 §6.2.16 extension_descriptor (tag 0x7F).

/// One descriptor of a PMT's program_info or ES_info loop, kept as its tag and data bytes.
public struct TSDescriptor: Sendable, Equatable {
    /// descriptor_tag of a registration_descriptor.
    public static let registrationTag: UInt8 = 0x05
    /// descriptor_tag of a DVB extension_descriptor.
    public static let extensionTag: UInt8 = 0x7F
    /// descriptor_length is 8 bits.
    public static let maxDataLength = 255

    /// descriptor_tag.
    public var tag: UInt8
    /// The descriptor_length bytes after the length.
    public var data: [UInt8]

    public init(tag: UInt8, data: [UInt8]) {
        precondition(data.count <= Self.maxDataLength, "descriptor_length is 8 bits")
        self.tag = tag
        self.data = data
    }

    /// A registration_descriptor naming `formatIdentifier` (four ASCII characters, e.g. "Opus").
    public static func registration(_ formatIdentifier: String) -> TSDescriptor {
        TSDescriptor(tag: registrationTag, data: Array(formatIdentifier.utf8.prefix(4)))
    }

    /// The format_identifier of a registration_descriptor, nil for other descriptors.
    public var formatIdentifier: String? {
        guard tag == Self.registrationTag, data.count >= 4 else { return nil }
        return String(decoding: data.prefix(4), as: UTF8.self)
    }

    /// Every descriptor of a descriptor loop; one running past the loop throws `.truncated`.
    public static func parseLoop(_ bytes: some Collection<UInt8>) throws -> [TSDescriptor] {
        var reader = ByteReader(Array(bytes))
        var descriptors: [TSDescriptor] = []
        while !reader.isAtEnd {
            let tag = try reader.readUInt8()
            let length = Int(try reader.readUInt8())
            descriptors.append(TSDescriptor(tag: tag, data: Array(try reader.readBytes(length))))
        }
        return descriptors
    }

    /// Appends descriptor_tag, descriptor_length and the data.
    public func write(into out: inout [UInt8]) {
        out.append(tag)
        out.append(UInt8(data.count))
        out += data
    }

    /// The bytes of a loop of `descriptors`.
    public static func loopBytes(_ descriptors: [TSDescriptor]) -> [UInt8] {
        var out: [UInt8] = []
        for descriptor in descriptors { descriptor.write(into: &out) }
        return out
    }
}
