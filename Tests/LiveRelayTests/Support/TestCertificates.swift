import Foundation

/// Private CAs and server certificates for 127.0.0.1 made with `openssl` at test time, as
/// scripts/lib/rtmps-terminator.sh makes its own: nothing is trusted beyond the run.
struct TestCertificate {
    /// The CA that signed it (PEM): what a publisher verifies against.
    var ca: String
    /// The server certificate (PEM) for IP 127.0.0.1 and localhost.
    var certificate: String
    /// Its private key (PEM, unencrypted).
    var key: String

    /// A new CA named `name` in `folder` and a server certificate it signs, whose subject is `CN=name server`.
    static func make(in folder: String, name: String) throws -> TestCertificate {
        let base = (folder as NSString).appendingPathComponent(name)
        let certificate = TestCertificate(ca: base + "-ca.pem", certificate: base + "-server.pem", key: base + "-server.key")
        try Live.run("/usr/bin/openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=\(name) CA",
                                          "-keyout", base + "-ca.key", "-out", certificate.ca,
                                          "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
        try Live.run("/usr/bin/openssl", ["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=\(name) server",
                                          "-keyout", certificate.key, "-out", base + "-server.csr"])
        let extensions = "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n"
            + "keyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n"
        try extensions.write(toFile: base + "-server.ext", atomically: true, encoding: .utf8)
        try Live.run("/usr/bin/openssl", ["x509", "-req", "-in", base + "-server.csr", "-CA", certificate.ca, "-CAkey", base + "-ca.key",
                                          "-set_serial", String(UInt32.random(in: 1...UInt32.max)), "-days", "2",
                                          "-extfile", base + "-server.ext", "-out", certificate.certificate])
        return certificate
    }

    /// Copies this certificate and key over `files` the way certbot renews: a new file renamed into place.
    func install(as files: (certificate: String, key: String)) throws {
        for (from, to) in [(certificate, files.certificate), (key, files.key)] {
            let staged = to + ".new"
            try? FileManager.default.removeItem(atPath: staged)
            try FileManager.default.copyItem(atPath: from, toPath: staged)
            guard rename(staged, to) == 0 else { throw LiveTestError("rename \(staged): \(String(cString: strerror(errno)))") }
        }
    }

    /// The certificate's base64 body, to compare with what a server presented.
    func body() throws -> String {
        try TestCertificate.pemBody(String(contentsOfFile: certificate, encoding: .utf8))
    }

    /// The first PEM certificate in `text`, without its armour or line breaks.
    static func pemBody(_ text: String) -> String {
        guard let begin = text.range(of: "-----BEGIN CERTIFICATE-----"),
              let end = text.range(of: "-----END CERTIFICATE-----", range: begin.upperBound..<text.endIndex) else { return "" }
        return text[begin.upperBound..<end.lowerBound].filter { !$0.isWhitespace }
    }

    /// The certificate a TLS server on `port` presents to a new connection now.
    static func served(port: Int) throws -> String {
        pemBody(try Live.run("/usr/bin/openssl", ["s_client", "-connect", "127.0.0.1:\(port)", "-showcerts"]))
    }
}
