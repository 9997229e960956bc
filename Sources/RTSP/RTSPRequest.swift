// RFC 2326 §6 Request (Request-Line, headers, CRLF), §10 method definitions.

/// An RTSP method (§10), as a value so extension methods stay representable.
public struct RTSPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let options = RTSPMethod(rawValue: "OPTIONS")
    public static let describe = RTSPMethod(rawValue: "DESCRIBE")
    public static let setup = RTSPMethod(rawValue: "SETUP")
    public static let play = RTSPMethod(rawValue: "PLAY")
    public static let getParameter = RTSPMethod(rawValue: "GET_PARAMETER")
    public static let teardown = RTSPMethod(rawValue: "TEARDOWN")

    public var description: String { rawValue }
}

/// A request the client sends: method, Request-URI, header fields, no body (none of the client's requests has one).
public struct RTSPRequest: Sendable, Equatable {
    public var method: RTSPMethod
    /// The absolute URL, without user information.
    public var uri: String
    public var headers: RTSPHeaders

    public init(method: RTSPMethod, uri: String, headers: RTSPHeaders = [:]) {
        self.method = method
        self.uri = uri
        self.headers = headers
    }

    /// The request as sent. CR and LF inside the URI or a value are left out, so no value can add a line.
    public func write(into output: inout [UInt8]) {
        output += Self.line("\(method.rawValue) \(uri) RTSP/1.0")
        for field in headers { output += Self.line("\(field.name): \(field.value)") }
        output += [0x0D, 0x0A]
    }

    public var serialized: [UInt8] {
        var output: [UInt8] = []
        write(into: &output)
        return output
    }

    private static func line(_ text: String) -> [UInt8] {
        text.utf8.filter { $0 != 0x0D && $0 != 0x0A } + [0x0D, 0x0A]
    }
}
