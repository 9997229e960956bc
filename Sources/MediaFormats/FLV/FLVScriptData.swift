// Adobe Flash Video File Format Specification v10.1, §E.4.4.1 SCRIPTDATA (ScriptTagBody: Name, Value).

/// The body of a script data tag: an AMF0 string name (e.g. "onMetaData") and one AMF0 value.
public struct FLVScriptData: Sendable, Equatable {
    /// The method or object name; `onMetaData` for file metadata.
    public var name: String
    /// The argument, an ECMA array for onMetaData.
    public var value: AMF0Value

    /// A script body `name(value)`.
    public init(name: String, value: AMF0Value) {
        self.name = name
        self.value = value
    }

    /// Parses a whole tag body; the name must be an AMF0 string.
    public init(parsing reader: inout ByteReader) throws {
        var r = reader
        guard case let .string(name) = try AMF0Value(parsing: &r) else {
            throw MediaFormatError.invalid(structure: "FLV script data", reason: "the name is not an AMF0 string")
        }
        let value = try AMF0Value(parsing: &r)
        self.name = name
        self.value = value
        reader = r
    }

    /// Appends the AMF0 name and value.
    public func write(into out: inout [UInt8]) throws {
        try AMF0Value.string(name).write(into: &out)
        try value.write(into: &out)
    }
}
