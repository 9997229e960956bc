// RTMP specification 1.0, §7.1.1 and §7.2: command messages — command name, transaction ID, command object,
// then optional arguments, all AMF0 (type 20; type 17 is the same after one AMF3 format byte).
import MediaFormats

/// One AMF0 command message (NetConnection connect / createStream / _result / _error, NetStream publish /
/// play / onStatus, and the de-facto releaseStream / FCPublish / FCUnpublish).
public struct Command: Sendable, Equatable {
    /// The command name, e.g. "connect" or "onStatus".
    public var name: String
    /// The transaction ID: 0 when no answer is expected.
    public var transactionID: Double
    /// The command object (properties for connect, usually null otherwise).
    public var commandObject: AMF0Value
    /// The optional arguments that follow.
    public var arguments: [AMF0Value]

    /// A command from its parts.
    public init(name: String, transactionID: Double, commandObject: AMF0Value = .null, arguments: [AMF0Value] = []) {
        self.name = name
        self.transactionID = transactionID
        self.commandObject = commandObject
        self.arguments = arguments
    }

    /// Parses the payload of a command message of `typeID` 20 (AMF0) or 17 (AMF3 marker byte, then AMF0).
    public init(parsing payload: [UInt8], typeID: UInt8 = MessageType.commandAMF0.rawValue) throws(ProtocolError) {
        var bytes = payload[...]
        if typeID == MessageType.commandAMF3.rawValue, bytes.first == 0 { bytes = bytes.dropFirst() }
        var reader = ByteReader(bytes)
        do {
            guard let name = try AMF0Value(parsing: &reader).stringValue else {
                throw ProtocolError(.malformedMessage, "command message whose name is not an AMF0 string")
            }
            self.name = name
            // Some clients end a command after its name; the transaction ID and object then default.
            transactionID = reader.isAtEnd ? 0 : (try AMF0Value(parsing: &reader).numberValue ?? 0)
            commandObject = reader.isAtEnd ? .null : try AMF0Value(parsing: &reader)
            arguments = []
            while !reader.isAtEnd { arguments.append(try AMF0Value(parsing: &reader)) }
        } catch let error as ProtocolError {
            throw error
        } catch {
            throw ProtocolError(.malformedMessage, "command message: \(error)")
        }
    }

    /// Appends the AMF0 encoding. Never fails: strings too long for an AMF0 string are written as long strings.
    public func write(into out: inout [UInt8]) {
        AMF0Encoding.append(.string(name), into: &out)
        AMF0Encoding.append(.number(transactionID), into: &out)
        AMF0Encoding.append(commandObject, into: &out)
        for argument in arguments { AMF0Encoding.append(argument, into: &out) }
    }

    /// This command as a type 20 message on `streamID`.
    public func message(streamID: UInt32 = 0, timestamp: UInt32 = 0) -> Message {
        var payload: [UInt8] = []
        write(into: &payload)
        return Message(type: .commandAMF0, timestamp: timestamp, streamID: streamID, payload: payload)
    }

    /// The first argument's property `key` as text (onStatus / _error info objects).
    func infoString(_ key: String) -> String? {
        for argument in arguments {
            if let text = argument[key]?.stringValue { return text }
        }
        return nil
    }
}

/// A non-throwing AMF0 writer for the values this module builds: MediaFormats' writer throws on strings over
/// 65535 bytes, which here become long strings (values) or are cut (property keys we never make that long).
enum AMF0Encoding {
    static func append(_ value: AMF0Value, into out: inout [UInt8]) {
        switch value {
        case let .string(text) where text.utf8.count > AMF0Limits.maxStringLength, let .longString(text):
            out.append(AMF0Marker.longString)
            out.appendUInt32(UInt32(truncatingIfNeeded: text.utf8.count))
            out.append(contentsOf: text.utf8)
        case let .string(text):
            out.append(AMF0Marker.string)
            appendKey(text, into: &out)
        case let .object(properties):
            out.append(AMF0Marker.object)
            appendProperties(properties, into: &out)
        case let .ecmaArray(properties):
            out.append(AMF0Marker.ecmaArray)
            out.appendUInt32(UInt32(truncatingIfNeeded: properties.count))
            appendProperties(properties, into: &out)
        case let .strictArray(values):
            out.append(AMF0Marker.strictArray)
            out.appendUInt32(UInt32(truncatingIfNeeded: values.count))
            for value in values { append(value, into: &out) }
        case let .number(number):
            out.append(AMF0Marker.number)
            out.appendFloat64(number)
        case let .boolean(flag):
            out.append(AMF0Marker.boolean)
            out.append(flag ? 1 : 0)
        case .null:
            out.append(AMF0Marker.null)
        case .undefined:
            out.append(AMF0Marker.undefined)
        case let .date(milliseconds, timeZone):
            out.append(AMF0Marker.date)
            out.appendFloat64(milliseconds)
            out.appendUInt16(UInt16(bitPattern: timeZone))
        }
    }

    private static func appendKey(_ text: String, into out: inout [UInt8]) {
        let utf8 = text.utf8.prefix(AMF0Limits.maxStringLength)
        out.appendUInt16(UInt16(utf8.count))
        out.append(contentsOf: utf8)
    }

    private static func appendProperties(_ properties: [AMF0Property], into out: inout [UInt8]) {
        for property in properties {
            appendKey(property.key, into: &out)
            append(property.value, into: &out)
        }
        out.append(contentsOf: [0x00, 0x00, AMF0Marker.objectEnd])
    }
}
