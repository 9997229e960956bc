// RFC 2326 §7 (responses), §10.12 (interleaved binary data between them), §12.14 (Content-Length).

/// What the server sends on an RTSP connection: a response or an interleaved frame.
public enum RTSPMessage: Sendable, Equatable {
    case response(RTSPResponse)
    case interleaved(InterleavedFrame)
}

/// Reads responses and interleaved frames from bytes that may arrive split anywhere. `append` the bytes as they come,
/// then call `next()` until it returns nil (more bytes needed). A malformed message throws; the connection cannot be
/// read further after that, as where the next message starts is unknown.
public struct RTSPMessageReader: Sendable {
    /// The longest status line and header block kept while waiting for its end.
    public static let maxHeaderSize = 16 << 10
    /// The largest body (a DESCRIBE answer's SDP is a few KiB).
    public static let maxBodySize = 1 << 20

    private var buffer: [UInt8] = []
    /// Where the unread bytes start in `buffer`.
    private var start = 0
    /// How far the search for the end of the header block got, so bytes fed one at a time are not searched again.
    private var scanned = 0

    public init() {}

    /// Bytes not yet returned as a message.
    public var bufferedCount: Int { buffer.count - start }

    public mutating func append(_ bytes: some Sequence<UInt8>) {
        // Unread bytes move to the front once the read ones are most of the buffer, so it does not grow without end.
        if start > 0, start >= buffer.count / 2 {
            buffer.removeFirst(start)
            scanned -= start
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next whole message; nil until more bytes arrive.
    public mutating func next() throws -> RTSPMessage? {
        guard start < buffer.count else { return nil }
        if buffer[start] == InterleavedFrame.magic { return try nextFrame() }
        return try nextResponse()
    }

    private mutating func nextFrame() throws -> RTSPMessage? {
        guard buffer.count - start >= InterleavedFrame.headerSize else { return nil }
        let length = Int(buffer[start + 2]) << 8 | Int(buffer[start + 3])
        let end = start + InterleavedFrame.headerSize + length
        guard buffer.count >= end else { return nil }
        let frame = InterleavedFrame(channel: buffer[start + 1], payload: Array(buffer[(start + InterleavedFrame.headerSize)..<end]))
        consume(upTo: end)
        return .interleaved(frame)
    }

    private mutating func nextResponse() throws -> RTSPMessage? {
        // The header block ends at an empty line: CRLF CRLF, or LF LF from a lenient server.
        var headerEnd: (lines: Int, body: Int)?
        var index = max(scanned, start)
        while index < buffer.count {
            if buffer[index] == 0x0A {
                if index >= start + 1, buffer[index - 1] == 0x0A {
                    headerEnd = (index - 1, index + 1)
                    break
                }
                if index >= start + 3, buffer[index - 1] == 0x0D, buffer[index - 2] == 0x0A {
                    headerEnd = (index - 2, index + 1)
                    break
                }
            }
            index += 1
        }
        guard let headerEnd else {
            scanned = buffer.count
            if buffer.count - start > Self.maxHeaderSize {
                throw RTSPError.limitExceeded(what: "header size", value: buffer.count - start, limit: Self.maxHeaderSize)
            }
            // A byte that can start neither a response nor a frame ends the connection's readability at once.
            if buffer[start] != UInt8(ascii: "R") {
                throw RTSPError.malformed(structure: "message", reason: "starts with byte \(buffer[start]), neither a response nor '$'")
            }
            return nil
        }
        guard headerEnd.body - start <= Self.maxHeaderSize + 4 else {
            throw RTSPError.limitExceeded(what: "header size", value: headerEnd.body - start, limit: Self.maxHeaderSize)
        }
        let text = String(decoding: buffer[start..<headerEnd.lines], as: UTF8.self)
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
        let status = try RTSPResponse.statusLine(lines.removeFirst())
        var headers = RTSPHeaders()
        for line in lines where !line.isEmpty {
            if line.first == " " || line.first == "\t", let last = headers.fields.last {
                // A folded line continues the previous value (§4.2 via RFC 2616 §4.2).
                var fields = headers.fields
                fields[fields.count - 1].value = last.value + " " + line.trimmedOfSpaces
                headers = RTSPHeaders(fields)
                continue
            }
            guard let colon = line.firstIndex(of: ":") else {
                throw RTSPError.malformed(structure: "header", reason: "\"\(line.prefix(80))\" has no colon")
            }
            headers.append(String(line[..<colon]).trimmedOfSpaces, String(line[line.index(after: colon)...]).trimmedOfSpaces)
        }
        var bodySize = 0
        if let length = headers["Content-Length"] {
            guard let size = Int(length), size >= 0 else {
                throw RTSPError.malformed(structure: "Content-Length header", reason: "\"\(length)\"")
            }
            guard size <= Self.maxBodySize else { throw RTSPError.limitExceeded(what: "body size", value: size, limit: Self.maxBodySize) }
            bodySize = size
        }
        // Waiting for the body: the next search starts at the block's last LF and finds its end at once.
        guard buffer.count - headerEnd.body >= bodySize else {
            scanned = headerEnd.body - 1
            return nil
        }
        let body = Array(buffer[headerEnd.body..<(headerEnd.body + bodySize)])
        consume(upTo: headerEnd.body + bodySize)
        return .response(RTSPResponse(statusCode: status.code, reasonPhrase: status.reason, headers: headers, body: body))
    }

    private mutating func consume(upTo end: Int) {
        start = end
        scanned = end
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
            scanned = 0
        }
    }
}
