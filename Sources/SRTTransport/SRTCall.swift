import JobDocument
import CSRT

/// The one checker every libsrt call passes through (STYLE 6): libsrt returns SRT_ERROR (-1) or
/// SRT_INVALID_SOCK (also -1) and keeps the reason per thread, so the reason is read at once, on the same thread.
@discardableResult
func srtCall(_ name: String, _ result: Int32) throws(SRTError) -> Int32 {
    guard result == SRT_ERROR else { return result }
    throw SRTError.lastLibraryError(name)
}

/// Closes a socket. It fails only for a socket libsrt already closed (a broken one it collected), so a failure is
/// dropped: the socket is gone either way.
func closeSocket(_ socket: SRTSOCKET) {
    _ = try? srtCall("srt_close", srt_close(socket))
}

extension SRTError {
    /// The calling thread's last libsrt error as a typed error naming `function`; clears it.
    static func lastLibraryError(_ function: String) -> SRTError {
        let code = srt_getlasterror(nil)
        let message = srt_getlasterror_str().map { String(cString: $0) } ?? "unknown error"
        srt_clearlasterror()
        return .library(function: function, code: code, message: message)
    }

    /// True for libsrt's "would block" errors of a non-blocking socket (SRT_EASYNCSND, SRT_EASYNCRCV).
    var wouldBlock: Bool {
        guard case let .library(_, code, _) = self else { return false }
        return code == SRT_EASYNCSND.rawValue || code == SRT_EASYNCRCV.rawValue
    }
}

/// The socket options SRTTransport sets, each with the name a failure reports. Integer and boolean options are
/// passed as `int`, which libsrt accepts for both.
enum SRTSocketOption {
    /// SRTO_TRANSTYPE SRTT_LIVE: message mode, TSBPD, too-late packet drop.
    case liveTransport
    /// SRTO_PAYLOADSIZE: the largest message, 1316 (7 TS packets) in live mode.
    case payloadSize(Int)
    /// SRTO_LATENCY: the receiver's buffer in milliseconds, both directions.
    case latency(Int)
    /// SRTO_STREAMID.
    case streamID(String)
    /// SRTO_PASSPHRASE.
    case passphrase(String)
    /// SRTO_PBKEYLEN in bytes.
    case keyLength(Int)
    /// SRTO_SNDSYN: whether sending blocks.
    case sendBlocks(Bool)
    /// SRTO_RCVSYN: whether receiving, accepting and connecting block.
    case receiveBlocks(Bool)
    /// SRTO_CONNTIMEO in milliseconds.
    case connectTimeout(Int)
    /// SRTO_REUSEADDR: whether a bind may join an existing multiplexer of the same address.
    case reuseAddress(Bool)
    /// SRTO_TSBPDMODE: whether received messages are held until their send time plus the latency (true), or handed
    /// over as soon as they are complete and in order (false; no TsbPd thread, no too-late drop).
    case timestampBasedDelivery(Bool)

    var name: String {
        switch self {
        case .liveTransport: return "SRTO_TRANSTYPE"
        case .payloadSize: return "SRTO_PAYLOADSIZE"
        case .latency: return "SRTO_LATENCY"
        case .streamID: return "SRTO_STREAMID"
        case .passphrase: return "SRTO_PASSPHRASE"
        case .keyLength: return "SRTO_PBKEYLEN"
        case .sendBlocks: return "SRTO_SNDSYN"
        case .receiveBlocks: return "SRTO_RCVSYN"
        case .connectTimeout: return "SRTO_CONNTIMEO"
        case .reuseAddress: return "SRTO_REUSEADDR"
        case .timestampBasedDelivery: return "SRTO_TSBPDMODE"
        }
    }

    private var cOption: SRT_SOCKOPT {
        switch self {
        case .liveTransport: return SRTO_TRANSTYPE
        case .payloadSize: return SRTO_PAYLOADSIZE
        case .latency: return SRTO_LATENCY
        case .streamID: return SRTO_STREAMID
        case .passphrase: return SRTO_PASSPHRASE
        case .keyLength: return SRTO_PBKEYLEN
        case .sendBlocks: return SRTO_SNDSYN
        case .receiveBlocks: return SRTO_RCVSYN
        case .connectTimeout: return SRTO_CONNTIMEO
        case .reuseAddress: return SRTO_REUSEADDR
        case .timestampBasedDelivery: return SRTO_TSBPDMODE
        }
    }

    /// The option's value as an `int`, or nil for the string options.
    private var integerValue: Int32? {
        switch self {
        case .liveTransport: return Int32(SRTT_LIVE.rawValue)
        case let .payloadSize(value), let .latency(value), let .keyLength(value), let .connectTimeout(value):
            return Int32(clamping: value)
        case let .sendBlocks(flag), let .receiveBlocks(flag), let .reuseAddress(flag), let .timestampBasedDelivery(flag):
            return flag ? 1 : 0
        case .streamID, .passphrase:
            return nil
        }
    }

    /// Sets the option; a failure names it (and never quotes a passphrase or streamid).
    func set(on socket: SRTSOCKET) throws(SRTError) {
        let result: Int32
        switch self {
        case let .streamID(text), let .passphrase(text):
            var bytes = Array(text.utf8)
            result = srt_setsockflag(socket, cOption, &bytes, Int32(bytes.count))
        default:
            var value = integerValue ?? 0
            result = srt_setsockflag(socket, cOption, &value, Int32(MemoryLayout<Int32>.size))
        }
        do {
            try srtCall("srt_setsockflag", result)
        } catch {
            guard case let .library(_, _, message) = error else { throw error }
            throw .option(name: name, message: message)
        }
    }
}

/// Reads SRTO_STREAMID back from a socket (what an accepted caller sent).
func readStreamID(of socket: SRTSOCKET) throws(SRTError) -> String {
    var buffer = [UInt8](repeating: 0, count: SRTURL.maximumStreamIDLength + 1)
    var length = Int32(buffer.count)
    do {
        try srtCall("srt_getsockflag", srt_getsockflag(socket, SRTO_STREAMID, &buffer, &length))
    } catch {
        guard case let .library(_, _, message) = error else { throw error }
        throw .option(name: "SRTO_STREAMID", message: message)
    }
    return String(decoding: buffer.prefix(max(0, min(Int(length), buffer.count))), as: UTF8.self)
}
