// OpenSSL's error queue (ERR_get_error, ERR_error_string_n): the one place an OpenSSL result becomes a DTLSError.
import CWebRTCCrypto

/// Checks OpenSSL results; every call DTLS makes goes through here.
enum OpenSSLResult {
    /// Room for one ERR_error_string_n line (OpenSSL's own buffers are 256 bytes).
    private static let lineLength = 256

    /// Opens libcrypto, libssl and libsrtp2 (once per process), or says why they cannot be.
    static func requireLibraries() throws(DTLSError) {
        if let reason = sluice_webrtc_crypto_load() {
            throw .libraryUnavailable(reason: String(cString: reason))
        }
    }

    /// Empties OpenSSL's error queue of this thread: its lines joined oldest first, or what was empty.
    static func drainErrorQueue() -> String {
        var lines: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var line = [CChar](repeating: 0, count: lineLength)
            ERR_error_string_n(code, &line, line.count)
            lines.append(String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return lines.isEmpty ? "no error in OpenSSL's queue" : lines.joined(separator: "; ")
    }

    /// The failure of `function`, with the queue's text.
    static func failure(_ function: String) -> DTLSError {
        .library(function: function, message: drainErrorQueue())
    }

    /// Throws unless `result` is OpenSSL's success, 1.
    static func check(_ result: Int32, _ function: String) throws(DTLSError) {
        guard result == 1 else { throw failure(function) }
    }

    /// The handle `function` returned, or its failure when it returned NULL.
    static func check(_ handle: OpaquePointer?, _ function: String) throws(DTLSError) -> OpaquePointer {
        guard let handle else { throw failure(function) }
        return handle
    }
}
