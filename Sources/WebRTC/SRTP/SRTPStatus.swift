// libsrtp 2's srtp_err_status_t (srtp.h): why a protect or unprotect refused a packet, by libsrtp's own names.

/// A libsrtp status code with its name; the ones a receiver meets are named constants.
public struct SRTPStatus: Hashable, Sendable, CustomStringConvertible {
    public let code: Int32

    /// The tag did not verify: the packet was altered or keyed otherwise.
    public static let authFail = SRTPStatus(code: 7)
    /// The packet index was seen already (a replay or a duplicate).
    public static let replayFail = SRTPStatus(code: 9)
    /// The packet index is older than the replay window.
    public static let replayOld = SRTPStatus(code: 10)
    /// A parameter libsrtp refused (a packet shorter than its header, a key of the wrong length).
    public static let badParam = SRTPStatus(code: 2)
    /// libsrtp could not be initialised or loaded.
    public static let initFail = SRTPStatus(code: 5)

    /// srtp_err_status_t's names without the `srtp_err_status_` prefix, by code.
    private static let names: [Int32: String] = [
        0: "ok", 1: "fail", 2: "bad_param", 3: "alloc_fail", 4: "dealloc_fail", 5: "init_fail", 6: "terminus",
        7: "auth_fail", 8: "cipher_fail", 9: "replay_fail", 10: "replay_old", 11: "algo_fail", 12: "no_such_op",
        13: "no_ctx", 14: "cant_check", 15: "key_expired", 16: "socket_err", 17: "signal_err", 18: "nonce_bad",
        19: "read_fail", 20: "write_fail", 21: "parse_err", 22: "encode_err", 23: "semaphore_err", 24: "pfkey_err",
        25: "bad_mki", 26: "pkt_idx_old", 27: "pkt_idx_adv",
    ]

    /// libsrtp's name for the code, e.g. `auth_fail`.
    public var name: String { Self.names[code] ?? "unknown status \(code)" }

    public var description: String { name }
}

/// A failure of SRTP or SRTCP protection.
public enum SRTPError: Error, Equatable, Sendable, CustomStringConvertible {
    /// libcrypto, libssl or libsrtp2 could not be opened: dlerror's text, which names the library.
    case libraryUnavailable(reason: String)
    /// A libsrtp call refused: its name and the status.
    case library(function: String, status: SRTPStatus)
    /// A packet longer than this endpoint handles: its length and the limit.
    case packetTooLarge(length: Int, limit: Int)

    public var description: String {
        switch self {
        case let .libraryUnavailable(reason):
            return "WebRTC crypto libraries unavailable: \(reason)"
        case let .library(function, status):
            return "\(function): \(status)"
        case let .packetTooLarge(length, limit):
            return "SRTP packet of \(length) bytes exceeds \(limit)"
        }
    }

    /// The status of a failed libsrtp call, nil for the others.
    public var status: SRTPStatus? {
        if case let .library(_, status) = self { return status }
        return nil
    }
}
