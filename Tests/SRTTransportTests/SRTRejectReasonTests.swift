import Testing
@testable import SRTTransport

/// Reject codes in words, and the one libsrt log line a listener learns a failed handshake from.
struct SRTRejectReasonTests {
    @Test("reject codes read as what happened", arguments: [
        (Int32(10), "wrong passphrase"), (11, "encryption mismatch"), (16, "no answer from the peer"),
        (1403, "forbidden"), (1404, "not found"), (1409, "conflict"), (2007, "application reason 7"), (999, "reject code 999"),
    ])
    func codes(code: Int32, text: String) {
        #expect(SRTRejectReason.text(code).contains(text))
    }

    @Test("the caller's error says the peer refused, with the reason")
    func callerError() {
        #expect("\(SRTError.rejected(code: 10, reason: SRTRejectReason.text(10)))" == "the peer refused: wrong passphrase (reject code 10)")
        #expect("\(SRTError.rejected(code: 16, reason: SRTRejectReason.text(16)))" == "no answer from the peer within the connect timeout")
    }

    struct Line: CustomTestStringConvertible, Sendable {
        let text: String
        let socket: Int32?
        let reason: String?
        var testDescription: String { String(text.prefix(60)) }
    }

    /// Lines as libsrt 1.5.1 wrote them to the handler in a wrong-passphrase and a refused-streamid handshake.
    static let lines: [Line] = [
        Line(text: "@63891654:newConnection: connection rejected due to: INTERNAL REJECTION - ERROR:BADSECRET",
             socket: 63891654, reason: "wrong passphrase"),
        Line(text: "@63891650:newConnection: connection rejected due to: INTERNAL REJECTION - ERROR:PREDEFINED:404",
             socket: 63891650, reason: "not found"),
        Line(text: "@12:newConnection: connection rejected due to: INTERNAL REJECTION - ERROR:UNSECURE",
             socket: 12, reason: "encryption mismatch: one side has a passphrase and the other none"),
        Line(text: "@12:newConnection: connection rejected due to: INTERNAL REJECTION - ERROR:USERDEFINED:5",
             socket: 12, reason: "application reason 5"),
        Line(text: "@12:newConnection: connection rejected due to: INTERNAL REJECTION - ERROR:NEWTHING",
             socket: 12, reason: "handshake refused (newthing)"),
        Line(text: "KMREQ/rcv: (snd) Rx process failure - BADSECRET", socket: nil, reason: nil),
        Line(text: "processConnectRequest: rsp(REJECT): 1010 - Incorrect passphrase", socket: nil, reason: nil),
        Line(text: "@x:newConnection: connection rejected due to: INTERNAL REJECTION - ERROR:BADSECRET", socket: nil, reason: nil),
        Line(text: "@5:newConnection: connection rejected due to: INTERNAL REJECTION", socket: nil, reason: nil),
    ]

    @Test("the listener's refusal line gives the socket and the reason; other lines give nothing", arguments: lines)
    func logLines(_ line: Line) {
        let found = SRTLogLine.handshakeRefusal(in: line.text)
        #expect(found?.socket == line.socket)
        #expect(found?.reason == line.reason)
    }
}
