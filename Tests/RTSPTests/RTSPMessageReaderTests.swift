import Testing
import RTSP

@Suite("RTSP message reader")
struct RTSPMessageReaderTests {
    static let describeAnswer = Array("RTSP/1.0 200 OK\r\nCSeq: 2\r\nContent-Type: application/sdp\r\nContent-Length: 10\r\n\r\nv=0\r\ns=-\r\n".utf8)
    static let frame: [UInt8] = [0x24, 0x00, 0x00, 0x05, 0x80, 0x60, 0x00, 0x01, 0xFF]
    static let rtcp: [UInt8] = [0x24, 0x01, 0x00, 0x00]
    static let keepAliveAnswer = Array("RTSP/1.0 200 OK\nCSeq: 3\nSession: 1234\n\n".utf8)
    static let stream = describeAnswer + frame + rtcp + keepAliveAnswer + frame

    static let expected: [RTSPMessage] = [
        .response(RTSPResponse(statusCode: 200, reasonPhrase: "OK",
                               headers: ["CSeq": "2", "Content-Type": "application/sdp", "Content-Length": "10"], body: Array("v=0\r\ns=-\r\n".utf8))),
        .interleaved(InterleavedFrame(channel: 0, payload: [0x80, 0x60, 0x00, 0x01, 0xFF])),
        .interleaved(InterleavedFrame(channel: 1, payload: [])),
        .response(RTSPResponse(statusCode: 200, reasonPhrase: "OK", headers: ["CSeq": "3", "Session": "1234"])),
        .interleaved(InterleavedFrame(channel: 0, payload: [0x80, 0x60, 0x00, 0x01, 0xFF])),
    ]

    static func read(_ stream: [UInt8], chunk: Int) throws -> [RTSPMessage] {
        var reader = RTSPMessageReader()
        var messages: [RTSPMessage] = []
        for start in stride(from: 0, to: stream.count, by: chunk) {
            reader.append(stream[start..<min(start + chunk, stream.count)])
            while let message = try reader.next() { messages.append(message) }
        }
        #expect(reader.bufferedCount == 0)
        return messages
    }

    @Test(arguments: [1, 2, 3, 7, 64, 100_000])
    func readsResponsesAndFramesSplitAnywhere(chunk: Int) throws {
        #expect(try Self.read(Self.stream, chunk: chunk) == Self.expected)
    }

    @Test func waitsForTheWholeBody() throws {
        var reader = RTSPMessageReader()
        reader.append(Self.describeAnswer.dropLast(3))
        #expect(try reader.next() == nil)
        #expect(try reader.next() == nil)
        reader.append(Self.describeAnswer.suffix(3))
        #expect(try reader.next() == Self.expected[0])
        #expect(try reader.next() == nil)
    }

    @Test func joinsAFoldedHeaderAndKeepsRepeatedOnes() throws {
        let text = "RTSP/1.0 401 Unauthorized\r\nCSeq: 1\r\nWWW-Authenticate: Digest realm=\"cam\",\r\n  nonce=\"n\"\r\nWWW-Authenticate: Basic realm=\"cam\"\r\n\r\n"
        var reader = RTSPMessageReader()
        reader.append(Array(text.utf8))
        guard case let .response(response) = try reader.next() else {
            Issue.record("no response")
            return
        }
        #expect(response.status == "401 Unauthorized")
        #expect(response.headers.values("www-authenticate") == ["Digest realm=\"cam\", nonce=\"n\"", "Basic realm=\"cam\""])
    }

    @Test(arguments: [
        ("HTTP/1.1 200 OK\r\n\r\n", RTSPError.malformed(structure: "status line", reason: "\"HTTP/1.1 200 OK\"")),
        ("RTSP/1.0 2000 OK\r\n\r\n", .malformed(structure: "status line", reason: "\"RTSP/1.0 2000 OK\"")),
        ("RTSP/1.0 200 OK\r\nno colon here\r\n\r\n", .malformed(structure: "header", reason: "\"no colon here\" has no colon")),
        ("RTSP/1.0 200 OK\r\nContent-Length: -4\r\n\r\n", .malformed(structure: "Content-Length header", reason: "\"-4\"")),
        ("RTSP/1.0 200 OK\r\nContent-Length: 2000000\r\n\r\n", .limitExceeded(what: "body size", value: 2_000_000, limit: 1 << 20)),
        ("GARBAGE", .malformed(structure: "message", reason: "starts with byte 71, neither a response nor '$'")),
    ])
    func refuses(text: String, error: RTSPError) {
        var reader = RTSPMessageReader()
        reader.append(Array(text.utf8))
        #expect(throws: error) { try reader.next() }
    }

    @Test func refusesAHeaderBlockWithoutEnd() {
        var reader = RTSPMessageReader()
        reader.append(Array("RTSP/1.0 200 OK\r\n".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: RTSPMessageReader.maxHeaderSize))
        #expect(throws: RTSPError.limitExceeded(what: "header size", value: RTSPMessageReader.maxHeaderSize + 17,
                                                limit: RTSPMessageReader.maxHeaderSize)) { try reader.next() }
    }

    @Test func writesRequestsWithoutInjectedLines() {
        let request = RTSPRequest(method: .setup, uri: "rtsp://cam/stream/trackID=1",
                                  headers: ["CSeq": "3", "Transport": "RTP/AVP/TCP;unicast;interleaved=0-1", "Session": "ab\r\nEvil: 1"])
        #expect(String(decoding: request.serialized, as: UTF8.self)
                == "SETUP rtsp://cam/stream/trackID=1 RTSP/1.0\r\nCSeq: 3\r\nTransport: RTP/AVP/TCP;unicast;interleaved=0-1\r\nSession: abEvil: 1\r\n\r\n")
        var frame: [UInt8] = []
        InterleavedFrame(channel: 3, payload: [1, 2]).write(into: &frame)
        #expect(frame == [0x24, 3, 0, 2, 1, 2])
    }
}
