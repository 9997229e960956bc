/// Message type IDs (RTMP specification 1.0, §5.4 protocol control messages, §6.2 user control, §7.1 the others).
public enum MessageType: UInt8, Sendable, CaseIterable {
    case setChunkSize = 1
    case abort = 2
    case acknowledgement = 3
    case userControl = 4
    case windowAcknowledgementSize = 5
    case setPeerBandwidth = 6
    case audio = 8
    case video = 9
    case dataAMF3 = 15
    case sharedObjectAMF3 = 16
    case commandAMF3 = 17
    case dataAMF0 = 18
    case sharedObjectAMF0 = 19
    case commandAMF0 = 20
    case aggregate = 22
}

/// One RTMP message (§5.3): what the chunk stream reassembles and what a sender splits into chunks.
public struct Message: Sendable, Equatable {
    /// The message type ID as sent; `MessageType(rawValue:)` names the known ones.
    public var typeID: UInt8
    /// Absolute timestamp in milliseconds, modulo 2^32 (§5.3.1.2: timestamps wrap).
    public var timestamp: UInt32
    /// The message stream ID (0 for protocol control and NetConnection commands).
    public var streamID: UInt32
    public var payload: [UInt8]

    public init(typeID: UInt8, timestamp: UInt32, streamID: UInt32, payload: [UInt8]) {
        self.typeID = typeID
        self.timestamp = timestamp
        self.streamID = streamID
        self.payload = payload
    }

    public init(type: MessageType, timestamp: UInt32 = 0, streamID: UInt32 = 0, payload: [UInt8]) {
        self.init(typeID: type.rawValue, timestamp: timestamp, streamID: streamID, payload: payload)
    }

    /// The known type, or nil for an ID the specification does not define.
    public var type: MessageType? { MessageType(rawValue: typeID) }
}
