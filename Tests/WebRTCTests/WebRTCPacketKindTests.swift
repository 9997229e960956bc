import Testing
import WebRTC

@Suite("RFC 7983 demultiplexing")
struct WebRTCPacketKindTests {
    @Test(arguments: [
        (UInt8(0), WebRTCPacketKind.stun), (1, .stun), (3, .stun),
        (4, .other), (16, .other), (19, .other),
        (20, .dtls), (22, .dtls), (23, .dtls), (63, .dtls),
        (64, .other), (79, .other), (127, .other),
        (128, .rtp), (0x90, .rtp), (191, .rtp),  // V=2; 0x90 with the X bit (a header extension)
        (192, .other), (255, .other),
    ])
    func classifiesByFirstByte(first: UInt8, kind: WebRTCPacketKind) {
        #expect(WebRTCPacketKind(classifying: [first, 0, 0, 0]) == kind)
    }

    @Test func anEmptyDatagramIsNothingWeKnow() {
        #expect(WebRTCPacketKind(classifying: [UInt8]()) == .other)
    }
}
