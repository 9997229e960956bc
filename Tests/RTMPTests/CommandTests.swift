import MediaFormats
import Testing
@testable import RTMP

/// AMF0 command messages (RTMP 1.0 §7.1.1) and User Control events (§6.2), byte by byte.
@Suite struct CommandTests {
    @Test func connectEncodesAsAMF0() throws {
        let command = Command(name: "connect", transactionID: 1, commandObject: .object([AMF0Property("app", .string("live"))]))
        var bytes: [UInt8] = []
        command.write(into: &bytes)
        let expected: [UInt8] = [0x02, 0x00, 0x07] + Array("connect".utf8)
            + [0x00, 0x3F, 0xF0, 0, 0, 0, 0, 0, 0]
            + [0x03, 0x00, 0x03] + Array("app".utf8) + [0x02, 0x00, 0x04] + Array("live".utf8) + [0x00, 0x00, 0x09]
        #expect(bytes == expected)
        #expect(try Command(parsing: bytes) == command)
    }

    @Test func argumentsRoundTrip() throws {
        let command = Command(name: "publish", transactionID: 5, arguments: [.string("key"), .string("live"), .number(-2000), .boolean(true)])
        #expect(try Command(parsing: command.message(streamID: 1).payload) == command)
    }

    @Test func amf3CommandSkipsItsFormatByte() throws {
        let command = Command(name: "createStream", transactionID: 4)
        var payload: [UInt8] = [0x00]
        command.write(into: &payload)
        #expect(try Command(parsing: payload, typeID: 17) == command)
    }

    @Test func overlongStringsBecomeLongStrings() throws {
        let key = String(repeating: "k", count: 70_000)
        var bytes: [UInt8] = []
        Command(name: "publish", transactionID: 0, arguments: [.string(key)]).write(into: &bytes)
        #expect(try Command(parsing: bytes).arguments == [.longString(key)])
    }

    @Test(arguments: [
        [UInt8](),
        [0x00, 0x3F, 0xF0, 0, 0, 0, 0, 0, 0],  // a number where the name should be
        [0x02, 0x00, 0x07, 0x63],              // truncated name
        [0x02, 0x00, 0x01, 0x61, 0x11],        // AMF3 switch marker as transaction ID
    ])
    func malformedCommandsAreProtocolErrors(payload: [UInt8]) {
        #expect(throws: ProtocolError.self) { _ = try Command(parsing: payload) }
    }

    @Test func userControlEventsRoundTrip() throws {
        let events: [UserControlEvent] = [
            .streamBegin(streamID: 1), .streamEOF(streamID: 1), .streamDry(streamID: 2), .setBufferLength(streamID: 1, milliseconds: 3000),
            .streamIsRecorded(streamID: 3), .pingRequest(timestamp: 0xDEAD_BEEF), .pingResponse(timestamp: 7), .unknown(eventType: 31),
        ]
        for event in events { #expect(try UserControlEvent(parsing: event.message.payload) == event) }
        #expect(UserControlEvent.setBufferLength(streamID: 1, milliseconds: 3000).message.payload == [0, 3, 0, 0, 0, 1, 0, 0, 0x0B, 0xB8])
        #expect(throws: ProtocolError.self) { _ = try UserControlEvent(parsing: [0, 6, 0, 0]) }
    }

    @Test func protocolControlPayloads() {
        #expect(ProtocolControl.setChunkSize(4096).payload == [0, 0, 0x10, 0])
        #expect(ProtocolControl.abort(chunkStreamID: 7).payload == [0, 0, 0, 7])
        #expect(ProtocolControl.acknowledgement(sequenceNumber: 0x0102_0304).payload == [1, 2, 3, 4])
        #expect(ProtocolControl.setPeerBandwidth(2_500_000, limitType: .dynamic).payload == [0x00, 0x26, 0x25, 0xA0, 2])
    }
}

/// Aggregate messages (RTMP 1.0 §7.1.6), byte by byte.
@Suite struct AggregateMessageTests {
    /// One sub-message: type, size, timestamp (24 bits + extension byte), stream ID 0, data, back pointer.
    private func subMessage(type: UInt8, timestamp: UInt32, data: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = [type]
        bytes.appendUInt24(UInt32(data.count))
        bytes.appendUInt24(timestamp & 0xFF_FFFF)
        bytes.append(UInt8(timestamp >> 24))
        bytes.appendUInt24(0)
        bytes += data
        bytes.appendUInt32(UInt32(11 + data.count))
        return bytes
    }

    @Test func subMessagesTakeTheAggregatesTimestampAsBase() throws {
        let payload = subMessage(type: 9, timestamp: 0x0100_0000, data: [0x17, 1]) + subMessage(type: 8, timestamp: 0x0100_0014, data: [0xAF, 1, 5])
        let messages = try AggregateMessage.split(Message(type: .aggregate, timestamp: 500, streamID: 1, payload: payload))
        #expect(messages == [
            Message(typeID: 9, timestamp: 500, streamID: 1, payload: [0x17, 1]),
            Message(typeID: 8, timestamp: 520, streamID: 1, payload: [0xAF, 1, 5]),
        ])
    }

    @Test func truncatedSubMessageIsAProtocolError() {
        let payload = Array(subMessage(type: 9, timestamp: 0, data: [1, 2, 3, 4]).dropLast(6))
        #expect(throws: ProtocolError.self) { _ = try AggregateMessage.split(Message(type: .aggregate, streamID: 1, payload: payload)) }
        #expect(throws: ProtocolError.self) { _ = try AggregateMessage.split(Message(type: .aggregate, streamID: 1, payload: [9, 0, 0])) }
    }
}
