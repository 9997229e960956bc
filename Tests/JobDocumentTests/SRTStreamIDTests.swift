import Testing
@testable import JobDocument

/// Streamids in both conventions peers use, with the malformed ones a listener must refuse.
struct SRTStreamIDTests {
    struct Valid: CustomTestStringConvertible, Sendable {
        let text: String
        let expected: SRTStreamID
        var testDescription: String { text }
    }

    static let valid: [Valid] = [
        Valid(text: "#!::r=live/KEY,m=publish", expected: SRTStreamID(resource: "live/KEY", mode: .publish)),
        Valid(text: "#!::r=live/KEY", expected: SRTStreamID(resource: "live/KEY", mode: .request)),
        Valid(text: "#!::m=request,r=live/KEY", expected: SRTStreamID(resource: "live/KEY", mode: .request)),
        Valid(text: "#!::u=alice,r=live/KEY,h=example.com,s=abc123,t=stream,m=publish",
              expected: SRTStreamID(resource: "live/KEY", mode: .publish, user: "alice", session: "abc123", host: "example.com")),
        Valid(text: "publish:live/KEY", expected: SRTStreamID(resource: "live/KEY", mode: .publish)),
        Valid(text: "read:live/KEY", expected: SRTStreamID(resource: "live/KEY", mode: .request)),
        // A plain resource asks to read, as `m` defaults to request.
        Valid(text: "live/KEY", expected: SRTStreamID(resource: "live/KEY", mode: .request)),
        Valid(text: "KEY", expected: SRTStreamID(resource: "KEY", mode: .request)),
    ]

    @Test("both conventions give the resource, mode, user and session", arguments: valid)
    func parsesValid(_ c: Valid) throws {
        let id = try SRTStreamID(parsing: c.text)
        #expect(id == c.expected)
        #expect(!"\(id)".contains("KEY") && !String(reflecting: id).contains("KEY"))
    }

    struct Invalid: CustomTestStringConvertible, Sendable {
        let text: String
        let reason: String
        var testDescription: String { "\(reason) (\(text.prefix(20)))" }
    }

    static let invalid: [Invalid] = [
        Invalid(text: "", reason: "empty"),
        Invalid(text: "#!::", reason: "not key=value"),
        Invalid(text: "#!::m=publish", reason: "no resource"),
        Invalid(text: "#!::r=live/KEY,m=bidirectional", reason: "mode m='bidirectional' is not request or publish"),
        Invalid(text: "#!::r=live/KEY,m=Publish", reason: "mode m=(not shown)"),
        Invalid(text: "#!::r=live/KEY,t=file", reason: "type t='file' is not supported"),
        Invalid(text: "#!::r=live/KEY,x=1", reason: "unknown key 'x'"),
        Invalid(text: "#!::r=live/KEY,r=other", reason: "key 'r' appears twice"),
        Invalid(text: "#!::r=,m=publish", reason: "key 'r' has an empty value"),
        Invalid(text: "#!::r=live/KEY,,m=publish", reason: "not key=value"),
        Invalid(text: "#!::live/SECRETKEY", reason: "not key=value"),
        Invalid(text: "#!::SECRETKEY=1", reason: "unknown key (not shown)"),
        Invalid(text: "play:live/KEY", reason: "not publish or read"),
        Invalid(text: "publish:", reason: "no resource after 'publish:'"),
        Invalid(text: "publish:live/KEY:extra", reason: "more than one ':'"),
        Invalid(text: "live/KEY with space", reason: "spaces or control characters"),
        Invalid(text: "live/KEY\n", reason: "spaces or control characters"),
        Invalid(text: String(repeating: "k", count: 513), reason: "longer than 512 bytes"),
    ]

    @Test("malformed streamids are refused, naming the key or rule and never the resource", arguments: invalid)
    func refusesInvalid(_ c: Invalid) {
        #expect {
            try SRTStreamID(parsing: c.text)
        } throws: { error in
            guard case let .invalidStreamID(reason) = error as? SRTAddressError else { return false }
            return reason.contains(c.reason) && !reason.contains("KEY") && !reason.contains("live/")
        }
    }
}
