// Action Message Format AMF0 specification (Adobe, 2007), §2 (type markers §2.1, types §2.2–§2.14).

/// AMF0 type markers (§2.1).
public enum AMF0Marker {
    /// number-marker: IEEE 754 double, big-endian.
    public static let number: UInt8 = 0x00
    /// boolean-marker: one byte, non-zero is true.
    public static let boolean: UInt8 = 0x01
    /// string-marker: UTF-8 with a UI16 length.
    public static let string: UInt8 = 0x02
    /// object-marker: properties until the object end.
    public static let object: UInt8 = 0x03
    /// movieclip-marker: reserved, not supported.
    public static let movieclip: UInt8 = 0x04
    /// null-marker.
    public static let null: UInt8 = 0x05
    /// undefined-marker.
    public static let undefined: UInt8 = 0x06
    /// reference-marker: UI16 index into earlier complex values (not supported).
    public static let reference: UInt8 = 0x07
    /// ecma-array-marker: UI32 count, then properties until the object end.
    public static let ecmaArray: UInt8 = 0x08
    /// object-end-marker, after an empty UTF-8 key (00 00 09).
    public static let objectEnd: UInt8 = 0x09
    /// strict-array-marker: UI32 count, then that many values.
    public static let strictArray: UInt8 = 0x0A
    /// date-marker: double milliseconds since the epoch, then SI16 time zone (reserved, 0).
    public static let date: UInt8 = 0x0B
    /// long-string-marker: UTF-8 with a UI32 length.
    public static let longString: UInt8 = 0x0C
    /// unsupported-marker.
    public static let unsupported: UInt8 = 0x0D
    /// recordset-marker: reserved, not supported.
    public static let recordset: UInt8 = 0x0E
    /// xml-document-marker: like a long string (not supported).
    public static let xmlDocument: UInt8 = 0x0F
    /// typed-object-marker: class name, then an object (not supported).
    public static let typedObject: UInt8 = 0x10
    /// avmplus-object-marker: switch to AMF3 (not supported).
    public static let avmplusObject: UInt8 = 0x11
}

/// Limits that keep a hostile script tag from exhausting the stack or memory.
public enum AMF0Limits {
    /// Deepest nesting of objects / arrays accepted when decoding or encoding.
    public static let maxDepth = 32
    /// A `string` is UI16-length-prefixed; longer text must be a `longString`.
    public static let maxStringLength = 0xFFFF
    /// Long strings larger than an FLV tag cannot occur in FLV script data.
    public static let maxLongStringLength = FLVLimits.maxTagDataSize
}

/// One key/value pair of an AMF0 object or ECMA array, in wire order.
public struct AMF0Property: Sendable, Equatable {
    /// The UTF-8 key.
    public var key: String
    /// The value.
    public var value: AMF0Value

    /// A property `key: value`.
    public init(_ key: String, _ value: AMF0Value) {
        self.key = key
        self.value = value
    }
}

/// An AMF0 value (§2.2–§2.14) for FLV script data such as onMetaData.
public indirect enum AMF0Value: Sendable, Equatable {
    /// number (§2.2).
    case number(Double)
    /// boolean (§2.3).
    case boolean(Bool)
    /// string (§2.4), at most 65535 UTF-8 bytes.
    case string(String)
    /// anonymous object (§2.5), properties in order.
    case object([AMF0Property])
    /// null (§2.7).
    case null
    /// undefined (§2.8).
    case undefined
    /// ECMA array (§2.10): an associative array, properties in order.
    case ecmaArray([AMF0Property])
    /// strict array (§2.12).
    case strictArray([AMF0Value])
    /// date (§2.13): milliseconds since 1970-01-01 UTC and the reserved time-zone field.
    case date(milliseconds: Double, timeZone: Int16)
    /// long string (§2.14).
    case longString(String)

    /// Decodes one value at the reader's position.
    public init(parsing reader: inout ByteReader) throws {
        self = try Self.decode(&reader, depth: 0)
    }

    /// Decodes one value from `bytes`, which must hold exactly that value.
    public init(parsing bytes: [UInt8]) throws {
        var reader = ByteReader(bytes)
        self = try Self.decode(&reader, depth: 0)
        guard reader.isAtEnd else {
            throw MediaFormatError.invalid(
                structure: "AMF0 value", reason: "\(reader.remaining) bytes after the value")
        }
    }

    /// Appends the encoding; throws when a string is too long for its type or nesting is too deep.
    public func write(into out: inout [UInt8]) throws {
        try encode(into: &out, depth: 0)
    }

    /// The number, if this is one.
    public var numberValue: Double? {
        if case let .number(value) = self { return value }
        return nil
    }

    /// The text of a string or long string.
    public var stringValue: String? {
        switch self {
        case let .string(text), let .longString(text): return text
        default: return nil
        }
    }

    /// The boolean, if this is one.
    public var booleanValue: Bool? {
        if case let .boolean(value) = self { return value }
        return nil
    }

    /// The properties of an object or ECMA array.
    public var properties: [AMF0Property]? {
        switch self {
        case let .object(properties), let .ecmaArray(properties): return properties
        default: return nil
        }
    }

    /// The first property named `key` of an object or ECMA array.
    public subscript(key: String) -> AMF0Value? {
        properties?.first { $0.key == key }?.value
    }

    // MARK: - Decoding

    private static func decode(_ reader: inout ByteReader, depth: Int) throws -> AMF0Value {
        let marker = try reader.readUInt8()
        switch marker {
        case AMF0Marker.number:
            return .number(try reader.readFloat64())
        case AMF0Marker.boolean:
            return .boolean(try reader.readUInt8() != 0)
        case AMF0Marker.string:
            return .string(try readUTF8(&reader, length: Int(try reader.readUInt16())))
        case AMF0Marker.object:
            return .object(try readProperties(&reader, depth: try nested(depth), count: nil))
        case AMF0Marker.null:
            return .null
        case AMF0Marker.undefined:
            return .undefined
        case AMF0Marker.ecmaArray:
            // The count is only a hint (writers get it wrong); the end marker ends the array.
            let count = Int(try reader.readUInt32())
            return .ecmaArray(try readProperties(&reader, depth: try nested(depth), count: count))
        case AMF0Marker.strictArray:
            let inner = try nested(depth)
            let count = Int(try reader.readUInt32())
            // Every value takes at least its marker byte: a larger count cannot be satisfied.
            guard count <= reader.remaining else {
                throw MediaFormatError.truncated(needed: count, available: reader.remaining)
            }
            var values: [AMF0Value] = []
            values.reserveCapacity(count)
            for _ in 0..<count { values.append(try decode(&reader, depth: inner)) }
            return .strictArray(values)
        case AMF0Marker.date:
            let milliseconds = try reader.readFloat64()
            return .date(milliseconds: milliseconds, timeZone: Int16(bitPattern: try reader.readUInt16()))
        case AMF0Marker.longString:
            let length = Int(try reader.readUInt32())
            guard length <= AMF0Limits.maxLongStringLength else {
                throw MediaFormatError.limitExceeded(
                    what: "AMF0 long string length", value: length, limit: AMF0Limits.maxLongStringLength)
            }
            return .longString(try readUTF8(&reader, length: length))
        case AMF0Marker.objectEnd:
            throw MediaFormatError.invalid(structure: "AMF0 value", reason: "object-end marker outside an object")
        default:
            throw MediaFormatError.unsupported(
                structure: "AMF0 value", reason: "type marker 0x\(String(marker, radix: 16))")
        }
    }

    private static func nested(_ depth: Int) throws -> Int {
        guard depth < AMF0Limits.maxDepth else {
            throw MediaFormatError.limitExceeded(
                what: "AMF0 nesting depth", value: depth + 1, limit: AMF0Limits.maxDepth)
        }
        return depth + 1
    }

    private static func readUTF8(_ reader: inout ByteReader, length: Int) throws -> String {
        // Invalid UTF-8 is replaced, not refused: encoder names in the wild are not always UTF-8.
        String(decoding: try reader.readBytes(length), as: UTF8.self)
    }

    /// Properties until 00 00 09. An ECMA array whose data ends right after its `count` properties
    /// without the end marker is accepted, as FFmpeg does.
    private static func readProperties(_ reader: inout ByteReader, depth: Int, count: Int?) throws -> [AMF0Property] {
        var properties: [AMF0Property] = []
        while true {
            if let count, properties.count == count, reader.isAtEnd { return properties }
            let keyLength = Int(try reader.readUInt16())
            if keyLength == 0, try reader.peekUInt8() == AMF0Marker.objectEnd {
                try reader.skip(1)
                return properties
            }
            let key = try readUTF8(&reader, length: keyLength)
            properties.append(AMF0Property(key, try decode(&reader, depth: depth)))
        }
    }

    // MARK: - Encoding

    private func encode(into out: inout [UInt8], depth: Int) throws {
        switch self {
        case let .number(value):
            out.append(AMF0Marker.number)
            out.appendFloat64(value)
        case let .boolean(value):
            out.append(AMF0Marker.boolean)
            out.append(value ? 1 : 0)
        case let .string(text):
            out.append(AMF0Marker.string)
            try Self.writeShortUTF8(text, into: &out)
        case let .object(properties):
            out.append(AMF0Marker.object)
            try Self.writeProperties(properties, into: &out, depth: try Self.nested(depth))
        case .null:
            out.append(AMF0Marker.null)
        case .undefined:
            out.append(AMF0Marker.undefined)
        case let .ecmaArray(properties):
            out.append(AMF0Marker.ecmaArray)
            out.appendUInt32(UInt32(truncatingIfNeeded: properties.count))
            try Self.writeProperties(properties, into: &out, depth: try Self.nested(depth))
        case let .strictArray(values):
            let inner = try Self.nested(depth)
            out.append(AMF0Marker.strictArray)
            out.appendUInt32(UInt32(truncatingIfNeeded: values.count))
            for value in values { try value.encode(into: &out, depth: inner) }
        case let .date(milliseconds, timeZone):
            out.append(AMF0Marker.date)
            out.appendFloat64(milliseconds)
            out.appendUInt16(UInt16(bitPattern: timeZone))
        case let .longString(text):
            let length = text.utf8.count
            guard length <= AMF0Limits.maxLongStringLength else {
                throw MediaFormatError.limitExceeded(
                    what: "AMF0 long string length", value: length, limit: AMF0Limits.maxLongStringLength)
            }
            out.append(AMF0Marker.longString)
            out.appendUInt32(UInt32(length))
            out.append(contentsOf: text.utf8)
        }
    }

    /// A UI16-length-prefixed UTF-8 string (a `string` body or a property key).
    static func writeShortUTF8(_ text: String, into out: inout [UInt8]) throws {
        let length = text.utf8.count
        guard length <= AMF0Limits.maxStringLength else {
            throw MediaFormatError.limitExceeded(
                what: "AMF0 string length", value: length, limit: AMF0Limits.maxStringLength)
        }
        out.appendUInt16(UInt16(length))
        out.append(contentsOf: text.utf8)
    }

    private static func writeProperties(_ properties: [AMF0Property], into out: inout [UInt8], depth: Int) throws {
        for property in properties {
            try writeShortUTF8(property.key, into: &out)
            try property.value.encode(into: &out, depth: depth)
        }
        out.append(contentsOf: [0x00, 0x00, AMF0Marker.objectEnd])
    }

    /// Encodes like `write(into:)` and reports where each top-level numeric property's 8-byte double
    /// starts, relative to the start of the encoding (used to patch `duration` / `filesize` later).
    func writeRecordingNumberOffsets(into out: inout [UInt8]) throws -> [String: Int] {
        let start = out.count
        guard let properties else {
            try write(into: &out)
            return [:]
        }
        var offsets: [String: Int] = [:]
        switch self {
        case .ecmaArray:
            out.append(AMF0Marker.ecmaArray)
            out.appendUInt32(UInt32(truncatingIfNeeded: properties.count))
        default:
            out.append(AMF0Marker.object)
        }
        for property in properties {
            try Self.writeShortUTF8(property.key, into: &out)
            // The first property of a name wins, as the subscript reads it.
            if case .number = property.value, offsets[property.key] == nil {
                offsets[property.key] = out.count + 1 - start
            }
            try property.value.encode(into: &out, depth: 1)
        }
        out.append(contentsOf: [0x00, 0x00, AMF0Marker.objectEnd])
        return offsets
    }
}
