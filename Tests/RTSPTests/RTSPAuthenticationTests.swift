import Testing
import RTSP

@Suite("RTSP Basic and Digest authentication")
struct RTSPAuthenticationTests {
    @Test func basic() {
        #expect(RTSPCredentials(user: "Aladdin", password: "open sesame").basicAuthorization == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
    }

    /// RFC 7616 §3.9.1's example, in MD5 and SHA-256.
    @Test(arguments: [("MD5", "8ca523f5e9506fed4657c9700eebdbec"), ("SHA-256", "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1")])
    func digestWithQop(algorithm: String, response: String) throws {
        let header = "Digest realm=\"http-auth@example.org\", qop=\"auth, auth-int\", algorithm=\(algorithm), "
            + "nonce=\"7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v\", opaque=\"FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS\""
        let challenges = try RTSPAuthenticationChallenge.parse(header)
        #expect(challenges.count == 1 && challenges[0].isDigest && challenges[0].parameters["qop"] == "auth, auth-int")
        var authenticator = try DigestAuthenticator(challenge: challenges[0], credentials: RTSPCredentials(user: "Mufasa", password: "Circle of Life"),
                                                    clientNonce: "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ")
        let authorization = authenticator.authorization(method: RTSPMethod(rawValue: "GET"), uri: "/dir/index.html")
        #expect(authorization == "Digest username=\"Mufasa\", realm=\"http-auth@example.org\", nonce=\"7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v\", "
                + "uri=\"/dir/index.html\", response=\"\(response)\", algorithm=\(algorithm), qop=auth, nc=00000001, "
                + "cnonce=\"f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ\", opaque=\"FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS\"")
        // The next request counts up.
        #expect(authenticator.authorization(method: .describe, uri: "/").contains("nc=00000002"))
    }

    /// RFC 2617 §3.5's example: MD5, qop=auth.
    @Test func digestOfRFC2617() throws {
        let challenge = try RTSPAuthenticationChallenge.parse("Digest realm=\"testrealm@host.com\", qop=\"auth,auth-int\", "
                                                              + "nonce=\"dcd98b7102dd2f0e8b11d0f600bfb0c093\", opaque=\"5ccc069c403ebaf9f0171e9517f40e41\"")[0]
        var authenticator = try DigestAuthenticator(challenge: challenge, credentials: RTSPCredentials(user: "Mufasa", password: "Circle Of Life"),
                                                    clientNonce: "0a4f113b")
        #expect(authenticator.authorization(method: RTSPMethod(rawValue: "GET"), uri: "/dir/index.html")
            .contains("response=\"6629fae49393a05397450978507c4ef1\""))
    }

    @Test func digestWithoutQop() throws {
        let challenge = try RTSPAuthenticationChallenge.parse("Digest realm=\"IP Camera\", nonce=\"abc123\"")[0]
        var authenticator = try DigestAuthenticator(challenge: challenge, credentials: RTSPCredentials(user: "admin", password: "se:cret"),
                                                    clientNonce: "unused")
        // md5(md5("admin:IP Camera:se:cret"):abc123:md5("DESCRIBE:rtsp://cam.local/stream")), computed outside Swift.
        #expect(authenticator.authorization(method: .describe, uri: "rtsp://cam.local/stream")
                == "Digest username=\"admin\", realm=\"IP Camera\", nonce=\"abc123\", uri=\"rtsp://cam.local/stream\", "
                + "response=\"35f1254cc3ef7b7acf1378e4883f9252\", algorithm=MD5")
    }

    @Test func parsesSeveralChallengesOnOneLineWithEscapes() throws {
        let challenges = try RTSPAuthenticationChallenge.parse("Digest realm=\"a \\\"quoted\\\", realm\", nonce=n1, Basic realm=\"b\"")
        #expect(challenges == [RTSPAuthenticationChallenge(scheme: "Digest", parameters: ["realm": "a \"quoted\", realm", "nonce": "n1"]),
                               RTSPAuthenticationChallenge(scheme: "Basic", parameters: ["realm": "b"])])
    }

    @Test(arguments: [
        ("Digest realm=\"open", RTSPError.malformed(structure: "WWW-Authenticate header", reason: "an unterminated quoted string")),
        ("", .malformed(structure: "WWW-Authenticate header", reason: "no challenge")),
        ("Digest realm=", .malformed(structure: "WWW-Authenticate header", reason: "realm= has no value")),
    ])
    func refusesChallenges(header: String, error: RTSPError) {
        #expect(throws: error) { try RTSPAuthenticationChallenge.parse(header) }
    }

    @Test(arguments: [
        ("Digest realm=\"r\"", "a Digest challenge without realm or nonce"),
        ("Digest realm=\"r\", nonce=\"n\", algorithm=SHA-512-256", "Digest algorithm SHA-512-256 is not supported"),
        ("Digest realm=\"r\", nonce=\"n\", qop=\"auth-int\"", "Digest qop auth-int without auth"),
    ])
    func refusesDigestChallenges(header: String, reason: String) throws {
        let challenge = try RTSPAuthenticationChallenge.parse(header)[0]
        #expect(throws: RTSPError.malformed(structure: "WWW-Authenticate header", reason: reason)) {
            try DigestAuthenticator(challenge: challenge, credentials: RTSPCredentials(user: "u", password: "p"), clientNonce: "c")
        }
    }
}
