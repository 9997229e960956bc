// RFC 2326 §10.12 Embedded (Interleaved) Binary Data: '$', a one-octet channel, a 16-bit length, the data.

/// One RTP or RTCP packet carried on the RTSP connection.
public struct InterleavedFrame: Sendable, Equatable {
    /// The '$' that starts a frame where a response would start with 'R'.
    static let magic = UInt8(ascii: "$")
    /// '$', channel, 16-bit length.
    static let headerSize = 4

    /// The channel SETUP's `interleaved=` named: even for RTP, odd for RTCP by convention.
    public var channel: UInt8
    public var payload: [UInt8]

    public init(channel: UInt8, payload: [UInt8]) {
        precondition(payload.count <= Int(UInt16.max), "the length is a 16-bit field")
        self.channel = channel
        self.payload = payload
    }

    /// The frame as sent.
    public func write(into output: inout [UInt8]) {
        output.append(Self.magic)
        output.append(channel)
        output.append(UInt8(truncatingIfNeeded: payload.count >> 8))
        output.append(UInt8(truncatingIfNeeded: payload.count))
        output += payload
    }
}
