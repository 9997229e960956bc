import Testing
import JobQueue

/// The output-edit control messages and the holder's answer, decoded and encoded.
struct OutputEditRequestTests {
    static let valid: [(json: String, expected: OutputEditRequest)] = [
        (#"{"add_output":{"job":"cam42","url":"rtmp://b.example/live/KEY"}}"#,
         OutputEditRequest(action: .add, jobID: "cam42", url: "rtmp://b.example/live/KEY")),
        (#"{"remove_output":{"url":"rtmps://b.example:443/live/KEY","job":"cam42"},"reply_to":"amq.gen-1","correlation_id":"c-1"}"#,
         OutputEditRequest(action: .remove, jobID: "cam42", url: "rtmps://b.example:443/live/KEY", replyTo: "amq.gen-1", correlationID: "c-1")),
        // pika's json.dumps puts spaces after separators.
        (#"{"add_output": {"job": "a\"b", "url": "rtmp://h/app/k"}, "reply_to": "q"}"#,
         OutputEditRequest(action: .add, jobID: "a\"b", url: "rtmp://h/app/k", replyTo: "q")),
    ]

    @Test("add_output and remove_output decode", arguments: valid)
    func decodes(_ c: (json: String, expected: OutputEditRequest)) {
        #expect(ControlMessage(json: Array(c.json.utf8)) == .editOutputs(c.expected))
    }

    static let malformed = [
        #"{"add_output":{"job":"cam42"}}"#,                                          // no url
        #"{"add_output":{"url":"rtmp://h/a/k"}}"#,                                   // no job
        #"{"add_output":{"job":"","url":"rtmp://h/a/k"}}"#,                          // empty job
        #"{"add_output":{"job":"j","url":""}}"#,                                     // empty url
        #"{"add_output":{"job":"j","url":42}}"#,                                     // url not a string
        #"{"add_output":{"job":"j","url":"rtmp://h/a/k","format":"flv"}}"#,          // unknown key in the edit
        #"{"add_output":{"job":"j","url":"rtmp://h/a/k"},"extra":1}"#,               // unknown key beside it
        #"{"add_output":{"job":"j","url":"rtmp://h/a/k"},"remove_output":{"job":"j","url":"rtmp://h/a/k"}}"#, // two edits
        #"{"add_output":{"job":"j","url":"rtmp://h/a/k"},"reply_to":7}"#,            // reply_to not a string
        #"{"add_output":{"job":"j","url":"rtmp://h/a/k"},"reply_to":""}"#,           // empty reply_to
        #"{"add_output":["j","rtmp://h/a/k"]}"#,                                     // not an object
    ]

    @Test("anything else is not an output edit", arguments: malformed)
    func rejects(_ json: String) {
        #expect(ControlMessage(json: Array(json.utf8)) == nil)
    }

    @Test("a reply_to longer than an AMQP short string is refused")
    func longReplyTo() {
        let long = String(repeating: "q", count: OutputEditRequest.maxReplyFieldBytes + 1)
        let json = #"{"add_output":{"job":"j","url":"rtmp://h/a/k"},"reply_to":"\#(long)"}"#
        #expect(ControlMessage(json: Array(json.utf8)) == nil)
    }

    @Test("encoding round-trips, with and without a reply address")
    func roundTrip() {
        for request in Self.valid.map(\.expected) + [OutputEditRequest(action: .remove, jobID: "ünï\\code", url: "rtmp://h/a/k?x=\"1\"")] {
            #expect(ControlMessage(json: ControlMessage.editOutputs(request).json) == .editOutputs(request))
        }
    }

    @Test("the answer round-trips and reads what a client would send")
    func reply() {
        let answers = [
            OutputEditReply(correlationID: "c-1", ok: true, message: "job j: output 2 added: rtmp://h/app/***", output: 2, workerID: "w1"),
            OutputEditReply(correlationID: nil, ok: false, message: "job j: has no output rtmp://h/app/***"),
        ]
        for answer in answers {
            #expect(OutputEditReply(json: answer.json) == answer)
        }
        #expect(OutputEditReply(json: Array(#"{"ok":true}"#.utf8)) == nil)
        #expect(OutputEditReply(json: Array("not json".utf8)) == nil)
    }
}
