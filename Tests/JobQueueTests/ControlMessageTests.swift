import Testing
import JobQueue

struct ControlMessageTests {
    static let valid: [(json: String, id: String)] = [
        (#"{"cancel":"cam42-2026-11-21"}"#, "cam42-2026-11-21"),
        (#"{ "cancel" : "a\"b" }"#, "a\"b"),
    ]

    @Test("cancel messages decode", arguments: valid)
    func decodes(_ c: (json: String, id: String)) {
        #expect(ControlMessage(json: Array(c.json.utf8)) == .cancel(jobID: c.id))
    }

    static let malformed = [#"{"cancel":""}"#, #"{"cancel":42}"#, #"{"stop":"x"}"#, #"{"cancel":"x","extra":1}"#,
                            "not json", "", #"["cancel","x"]"#]

    @Test("anything else is not a control message", arguments: malformed)
    func rejects(_ json: String) {
        #expect(ControlMessage(json: Array(json.utf8)) == nil)
    }

    @Test("encoding round-trips, including characters JSON must escape")
    func roundTrip() {
        for id in ["job-1", "quote\"and\\slash", "ünïcode"] {
            #expect(ControlMessage(json: ControlMessage.cancel(jobID: id).json) == .cancel(jobID: id))
        }
    }
}
