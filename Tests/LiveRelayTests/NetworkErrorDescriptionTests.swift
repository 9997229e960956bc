import Testing
@testable import LiveRelay

/// What an operator reads when a connection fails: the cause, never a path of the machine that built Sluice.
@Suite("Network error descriptions")
struct NetworkErrorDescriptionTests {
    @Test("BoringSSL's source locations are cut from a reason; its words are kept", arguments: [
        ("handshakeFailed(NIOSSL.BoringSSLError.sslError([Error: 268435581 error:1000007d:SSL routines:OPENSSL_internal:"
            + "CERTIFICATE_VERIFY_FAILED at /build/.build/checkouts/swift-nio-ssl/Sources/CNIOBoringSSL/ssl/handshake.cc:393]))",
         "handshakeFailed(NIOSSL.BoringSSLError.sslError([Error: 268435581 error:1000007d:SSL routines:OPENSSL_internal:"
            + "CERTIFICATE_VERIFY_FAILED]))"),
        ("two at /a/b.cc:1, and at /c/d.cc:2)", "two, and)"),
        ("Connection refused (errno: 111)", "Connection refused (errno: 111)"),
        ("look at the stream", "look at the stream"),
    ])
    func sourceLocationsCut(text: String, expected: String) {
        #expect(withoutSourceLocations(text) == expected)
    }
}
