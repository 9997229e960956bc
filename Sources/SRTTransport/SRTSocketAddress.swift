import CSRT
#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 socket address as libsrt takes it (`sockaddr_in` / `sockaddr_in6` in a `sockaddr_storage`).
struct SRTSocketAddress {
    private(set) var storage = sockaddr_storage()
    private(set) var length: Int32 = 0

    var family: Int32 { Int32(storage.ss_family) }

    /// An address literal (`127.0.0.1`, `::1`; empty means every IPv4 address), or nil when `host` is a name.
    init?(literal host: String, port: UInt16) {
        let text = host.isEmpty ? "0.0.0.0" : host
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr = v4
            self.init(copying: address)
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            address.sin6_addr = v6
            self.init(copying: address)
        } else {
            return nil
        }
    }

    /// The wildcard address of `family` (0.0.0.0 or ::) at `port`: where callers bind.
    init(wildcardOf family: Int32, port: UInt16) {
        // Both literals parse, so the fallback is never taken.
        self = SRTSocketAddress(literal: family == AF_INET6 ? "::" : "0.0.0.0", port: port) ?? SRTSocketAddress()
    }

    private init() {}

    private init<Address>(copying address: Address) {
        withUnsafeBytes(of: address) { source in
            withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: source) }
        }
        length = Int32(MemoryLayout<Address>.size)
    }

    /// Copies what libsrt wrote into a `sockaddr` of `length` bytes (accept, the listen callback, getsockname).
    init?(_ address: UnsafePointer<sockaddr>?) {
        guard let address else { return nil }
        switch Int32(address.pointee.sa_family) {
        case AF_INET: self.init(copying: UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in.self))
        case AF_INET6: self.init(copying: UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in6.self))
        default: return nil
        }
    }

    /// Resolves `host` (blocking: run it off any loop) to its first IPv4 or IPv6 address.
    static func resolve(_ host: String, port: UInt16) throws(SRTError) -> SRTSocketAddress {
        if let literal = SRTSocketAddress(literal: host, port: port) { return literal }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        defer { if let list { freeaddrinfo(list) } }
        guard status == 0 else { throw .unresolvable(host: host, message: String(cString: gai_strerror(status))) }
        var entry = list
        while let current = entry {
            if let found = SRTSocketAddress(UnsafePointer(current.pointee.ai_addr)) { return found }
            entry = current.pointee.ai_next
        }
        throw .unresolvable(host: host, message: "no IPv4 or IPv6 address")
    }

    var port: UInt16 {
        withUnsafeBytes(of: storage) { raw in
            family == AF_INET6 ? UInt16(bigEndian: raw.loadUnaligned(as: sockaddr_in6.self).sin6_port)
                               : UInt16(bigEndian: raw.loadUnaligned(as: sockaddr_in.self).sin_port)
        }
    }

    /// `127.0.0.1:5000` or `[::1]:5000`.
    var text: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let host: String = withUnsafeBytes(of: storage) { raw in
            var ok = false
            if family == AF_INET6 {
                var address = raw.loadUnaligned(as: sockaddr_in6.self).sin6_addr
                ok = inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil
            } else {
                var address = raw.loadUnaligned(as: sockaddr_in.self).sin_addr
                ok = inet_ntop(AF_INET, &address, &buffer, socklen_t(buffer.count)) != nil
            }
            return ok ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
        }
        return family == AF_INET6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Calls `body` with the address as libsrt's `const sockaddr*` and its length.
    @discardableResult
    func withSocketAddress<Result>(_ body: (UnsafePointer<sockaddr>, Int32) throws(SRTError) -> Result) throws(SRTError) -> Result {
        var copy = storage
        return try withUnsafePointer(to: &copy) { (pointer) throws(SRTError) -> Result in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { (address) throws(SRTError) -> Result in
                try body(address, length)
            }
        }
    }

    /// The local address libsrt bound `socket` to.
    static func local(of socket: SRTSOCKET) throws(SRTError) -> SRTSocketAddress {
        var storage = sockaddr_storage()
        var length = Int32(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { srt_getsockname(socket, $0, &length) }
        }
        try srtCall("srt_getsockname", result)
        return try withUnsafePointer(to: &storage) { (pointer) throws(SRTError) -> SRTSocketAddress in
            guard let address = pointer.withMemoryRebound(to: sockaddr.self, capacity: 1, { SRTSocketAddress($0) }) else {
                throw .library(function: "srt_getsockname", code: 0, message: "not an IPv4 or IPv6 address")
            }
            return address
        }
    }
}
