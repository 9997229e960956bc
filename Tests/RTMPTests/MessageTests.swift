import Testing
@testable import RTMP

@Suite struct MessageTests {
    @Test func typeIDsAreTheSpecificationsNumbers() {
        #expect(MessageType.setChunkSize.rawValue == 1)
        #expect(MessageType.windowAcknowledgementSize.rawValue == 5)
        #expect(MessageType.commandAMF0.rawValue == 20)
        #expect(MessageType.aggregate.rawValue == 22)
        #expect(Message(typeID: 7, timestamp: 0, streamID: 0, payload: []).type == nil)
        #expect(Message(type: .video, timestamp: 40, streamID: 1, payload: [0x17]).typeID == 9)
    }
}
