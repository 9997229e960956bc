// The certificate rtmps:// listen jobs serve, reloaded when its files change.
// Concurrency: called from any event loop (each new TLS connection, each new rtmps listen job); the state sits
// behind one `Mutex`. A check is two `stat` calls; a changed pair is read (a few KiB) and parsed once.
import Foundation
import NIOSSL
import NIOConcurrencyHelpers

/// Where the worker's ingest certificate lives: a PEM certificate chain (leaf first) and its PEM private key.
public struct IngestCertificateFiles: Sendable, Equatable {
    /// Environment variable naming the PEM certificate chain rtmps:// listen jobs serve.
    public static let certificateEnvironmentVariable = "SLUICE_RTMPS_CERT_FILE"
    /// Environment variable naming the PEM private key of that certificate.
    public static let keyEnvironmentVariable = "SLUICE_RTMPS_KEY_FILE"

    /// The chain's path; nil when not configured.
    public var certificate: String?
    /// The key's path; nil when not configured.
    public var key: String?

    /// - Parameters:
    ///   - certificate: path of the PEM certificate chain, leaf first.
    ///   - key: path of the PEM private key (unencrypted).
    public init(certificate: String?, key: String?) {
        self.certificate = certificate.flatMap { $0.isEmpty ? nil : $0 }
        self.key = key.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The files named by `SLUICE_RTMPS_CERT_FILE` and `SLUICE_RTMPS_KEY_FILE` in `environment`.
    /// - Parameter environment: the process environment (or a test's).
    public init(environment: [String: String]) {
        self.init(certificate: environment[Self.certificateEnvironmentVariable], key: environment[Self.keyEnvironmentVariable])
    }
}

/// The ingest certificate cannot be served: not configured, unreadable, or not a matching chain and key.
struct IngestCertificateError: Error, Equatable, CustomStringConvertible {
    static let needsFiles = "rtmps listen needs SLUICE_RTMPS_CERT_FILE and SLUICE_RTMPS_KEY_FILE"
    var description: String
}

/// What identifies one version of a file on disk: a renewal that renames a new file into place changes the
/// inode, one that rewrites it in place changes the size or the times.
struct CertificateFileVersion: Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: timespec
    var changed: timespec

    /// The version `path` names now (symbolic links followed, as certbot's live/ folder needs); nil when it cannot be read.
    init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        self.init(status)
    }

    init(_ status: stat) {
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        size = Int64(status.st_size)
        modified = status.st_mtim
        changed = status.st_ctim
    }

    static func == (a: CertificateFileVersion, b: CertificateFileVersion) -> Bool {
        a.device == b.device && a.inode == b.inode && a.size == b.size
            && a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec
            && a.changed.tv_sec == b.changed.tv_sec && a.changed.tv_nsec == b.changed.tv_nsec
    }
}

/// The TLS server context of the ingest certificate, made again when the certificate or key file changes.
/// A pair that does not load (a half-written renewal, a key that does not match) keeps the previous context
/// serving and is reported once; the next change is tried again.
final class IngestCertificateReloader: Sendable {
    /// A PEM file larger than this is not a certificate chain or a key.
    static let maxFileBytes = 1 << 20

    private struct Served {
        var versions: [CertificateFileVersion?]
        var context: NIOSSLContext
        /// The leaf's serial and expiry, for the log.
        var leaf: String
    }

    private struct State {
        var served: Served?
        /// The versions last tried and refused, and why: not tried again until a file changes.
        var refused: (versions: [CertificateFileVersion?], error: IngestCertificateError)?
        var loads = 0
        var failedLoads = 0
    }

    private let files: IngestCertificateFiles
    private let report: @Sendable (String) -> Void
    private let state = NIOLockedValueBox(State())

    /// - Parameters:
    ///   - files: the certificate chain and key.
    ///   - report: one line per reload and per refused renewal (standard error by default); never a key.
    init(files: IngestCertificateFiles, report: @escaping @Sendable (String) -> Void = { IngestCertificateReloader.standardError($0) }) {
        self.files = files
        self.report = report
    }

    static func standardError(_ line: String) {
        FileHandle.standardError.write(Data(("sluice: " + line + "\n").utf8))
    }

    /// Pairs loaded so far, and pairs refused.
    var counts: (loads: Int, failedLoads: Int) { state.withLockedValue { ($0.loads, $0.failedLoads) } }

    /// The context to serve now: the current files when they load, else the last pair that did.
    func context() -> Result<NIOSSLContext, IngestCertificateError> {
        guard let certificate = files.certificate, let key = files.key else {
            return .failure(IngestCertificateError(description: IngestCertificateError.needsFiles))
        }
        let versions = [CertificateFileVersion(path: certificate), CertificateFileVersion(path: key)]
        let (result, line): (Result<NIOSSLContext, IngestCertificateError>, String?) = state.withLockedValue { state in
            if let served = state.served, served.versions == versions { return (.success(served.context), nil) }
            if let refused = state.refused, refused.versions == versions {
                return (state.served.map { .success($0.context) } ?? .failure(refused.error), nil)
            }
            switch IngestCertificateReloader.load(certificate: certificate, key: key) {
            case let .success((context, leaf)):
                let renewed = state.served != nil
                state.served = Served(versions: versions, context: context, leaf: leaf)
                state.refused = nil
                state.loads += 1
                return (.success(context), renewed ? "rtmps ingest: serving the renewed certificate (\(leaf))" : nil)
            case let .failure(reason):
                state.failedLoads += 1
                guard let served = state.served else {
                    let error = IngestCertificateError(description: "\(IngestCertificateError.needsFiles) (a PEM certificate chain and its key): \(reason)")
                    state.refused = (versions, error)
                    return (.failure(error), nil)
                }
                state.refused = (versions, reason)
                return (.success(served.context),
                        "rtmps ingest: the renewed certificate does not load, still serving the previous one (\(served.leaf)): \(reason)")
            }
        }
        if let line { report(line) }
        return result
    }

    /// A server context for the chain and key in these files, and a description of the leaf for the log; or why not.
    static func load(certificate: String, key: String) -> Result<(NIOSSLContext, String), IngestCertificateError> {
        func failure(_ reason: String) -> Result<(NIOSSLContext, String), IngestCertificateError> {
            .failure(IngestCertificateError(description: reason))
        }
        let chainBytes: [UInt8]
        let keyBytes: [UInt8]
        switch (readFile(certificate), readFile(key)) {
        case let (.success(chainData), .success(keyData)): (chainBytes, keyBytes) = (chainData, keyData)
        case let (.failure(reason), _), let (_, .failure(reason)): return failure(reason.description)
        }
        let chain: [NIOSSLCertificate]
        do { chain = try NIOSSLCertificate.fromPEMBytes(chainBytes) } catch {
            return failure("\(certificate) holds no PEM certificate (\(error))")
        }
        guard let leaf = chain.first else { return failure("\(certificate) holds no PEM certificate") }
        let privateKey: NIOSSLPrivateKey
        do { privateKey = try NIOSSLPrivateKey(bytes: keyBytes, format: .pem) } catch {
            return failure("\(key) holds no unencrypted PEM private key (\(error))")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) },
                                                                     privateKey: .privateKey(privateKey))
        configuration.minimumTLSVersion = .tlsv12
        do {
            // BoringSSL refuses a key that is not the leaf's: a renewal caught between its two files.
            return .success((try NIOSSLContext(configuration: configuration), describe(leaf)))
        } catch {
            return failure("the key in \(key) does not go with the certificate in \(certificate) (\(error))")
        }
    }

    /// Serial number and expiry: enough to tell two certificates apart in a log.
    static func describe(_ leaf: NIOSSLCertificate) -> String {
        let serial = leaf.serialNumber.map { String(format: "%02x", $0) }.joined()
        let expiry = Date(timeIntervalSince1970: TimeInterval(leaf.notValidAfter))
        return "serial \(serial), valid until \(expiry.formatted(.iso8601))"
    }

    /// The whole file, at most `maxFileBytes`.
    static func readFile(_ path: String) -> Result<[UInt8], IngestCertificateError> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(IngestCertificateError(description: "cannot read \(path): \(String(cString: strerror(errno)))")) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(IngestCertificateError(description: "cannot read \(path): \(String(cString: strerror(errno)))"))
            }
            if count == 0 { return .success(bytes) }
            bytes.append(contentsOf: chunk[0..<count])
            guard bytes.count <= maxFileBytes else {
                return .failure(IngestCertificateError(description: "\(path) is larger than \(maxFileBytes) bytes"))
            }
        }
    }
}
