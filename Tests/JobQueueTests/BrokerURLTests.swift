import Testing
@testable import JobQueue

/// RabbitMQ URI spec cases: https://www.rabbitmq.com/uri-spec.html
struct BrokerURLTests {
    struct Valid: CustomTestStringConvertible, Sendable {
        let url: String
        let tls: Bool, host: String, port: Int, user: String, password: String, vhost: String
        var testDescription: String { url }
    }

    static let valid: [Valid] = [
        Valid(url: "amqp://host", tls: false, host: "host", port: 5672, user: "guest", password: "guest", vhost: "/"),
        Valid(url: "amqps://host", tls: true, host: "host", port: 5671, user: "guest", password: "guest", vhost: "/"),
        Valid(url: "amqp://user:pass@host:10000/vhost", tls: false, host: "host", port: 10000, user: "user",
              password: "pass", vhost: "vhost"),
        Valid(url: "amqp://user%61:%61pass@ho%61st:10000/v%2Fhost", tls: false, host: "hoast", port: 10000,
              user: "usera", password: "apass", vhost: "v/host"),
        Valid(url: "amqp://guest:guest@127.0.0.1:5699/%2F", tls: false, host: "127.0.0.1", port: 5699,
              user: "guest", password: "guest", vhost: "/"),
        // A bare trailing slash is the default vhost, as pika reads it (the spec's empty vhost is refused with 530).
        Valid(url: "amqp://host/", tls: false, host: "host", port: 5672, user: "guest", password: "guest", vhost: "/"),
        Valid(url: "amqp://user:pass@host:5672/", tls: false, host: "host", port: 5672, user: "user",
              password: "pass", vhost: "/"),
        Valid(url: "amqps://user:pass@host/", tls: true, host: "host", port: 5671, user: "user",
              password: "pass", vhost: "/"),
        Valid(url: "amqp://[::1]:5673/x", tls: false, host: "::1", port: 5673, user: "guest", password: "guest", vhost: "x"),
        Valid(url: "amqp://u@h", tls: false, host: "h", port: 5672, user: "u", password: "", vhost: "/"),
        // '@' and ':' inside a password must be escaped; the last '@' ends the userinfo.
        Valid(url: "amqp://u:p%40ss%3Aw@h", tls: false, host: "h", port: 5672, user: "u", password: "p@ss:w", vhost: "/"),
    ]

    @Test("valid URLs parse into their parts", arguments: valid)
    func parsesValid(_ c: Valid) throws {
        let url = try BrokerURL(parsing: c.url)
        #expect(url.isTLS == c.tls)
        #expect(url.host == c.host)
        #expect(url.port == c.port)
        #expect(url.user == c.user)
        #expect(url.password == c.password)
        #expect(url.vhost == c.vhost)
    }

    static let malformed: [(url: String, reason: String)] = [
        ("http://host", "the scheme must be amqp:// or amqps://"),
        ("amqp://", "the host is missing"),
        ("amqp://user:secret@:5672", "the host is missing"),
        ("amqp://user:secret@host:99999", "the port must be a number in 1...65535"),
        ("amqp://user:secret@host:abc", "the port must be a number in 1...65535"),
        ("amqp://user:secret@host/a/b", "a '/' inside the vhost must be written %2F"),
        ("amqp://user:secret@host?heartbeat=5", "query parameters and fragments are not supported; use the options"),
        ("amqp://user:sec%2@host", "malformed percent-escape in the password"),
        ("amqp://user:secret@[::1", "an IPv6 host is missing its closing ']'"),
        ("amqp://user:secret@host/%FF", "the vhost is not valid UTF-8 after percent-decoding"),
    ]

    @Test("malformed URLs fail with a reason that never quotes the credentials", arguments: malformed)
    func rejectsMalformed(_ c: (url: String, reason: String)) {
        #expect(throws: AMQPError.invalidURL(reason: c.reason)) { try BrokerURL(parsing: c.url) }
        #expect(!AMQPError.invalidURL(reason: c.reason).description.contains("secret"))
    }

    static let redactions: [(url: String, redacted: String)] = [
        ("amqp://user:secret@host:5672/%2F", "amqp://***@host:5672/%2F"),
        ("amqps://user:secret@broker.example/prod", "amqps://***@broker.example:5671/prod"),
        ("amqp://secret@[::1]:5673/", "amqp://***@[::1]:5673/%2F"),
        ("amqp://host", "amqp://***@host:5672/%2F"),
    ]

    @Test("redacted URLs hide user and password", arguments: redactions)
    func redacts(_ c: (url: String, redacted: String)) throws {
        let url = try BrokerURL(parsing: c.url)
        #expect(url.redacted == c.redacted)
        #expect(!url.redacted.contains("secret"))
        #expect(try BrokerURL(parsing: c.url.replacingSecret()).redacted == c.redacted)
    }
}

private extension String {
    /// The same URL with another password: redaction must not depend on it.
    func replacingSecret() -> String {
        split(separator: "secret", omittingEmptySubsequences: false).joined(separator: "other")
    }
}
