import Testing
import MediaFormats

@Suite("Base 64")
struct Base64Tests {
    @Test(arguments: [
        ("", [UInt8]()), ("YQ==", Array("a".utf8)), ("YWI=", Array("ab".utf8)), ("YWJj", Array("abc".utf8)),
        ("QWxhZGRpbjpvcGVuIHNlc2FtZQ==", Array("Aladdin:open sesame".utf8)), ("+/+/", [0xFB, 0xFF, 0xBF]),
    ])
    func roundTrips(text: String, bytes: [UInt8]) {
        #expect(Base64.encode(bytes) == text)
        #expect(Base64.decode(text) == bytes)
    }

    @Test func decodesWithoutPadding() {
        // sprop-parameter-sets as some cameras write it: the padding left off.
        #expect(Base64.decode("aM48gA") == [0x68, 0xCE, 0x3C, 0x80])
    }

    @Test(arguments: ["Z0IA*", "YQ=a", "Y", "YQ===", "Y Q=="])
    func refuses(text: String) {
        #expect(Base64.decode(text) == nil)
    }
}
