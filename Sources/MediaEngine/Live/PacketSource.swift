/// What `CopySession` reads: an opened input (`MediaInput`) or a live one that reconnects (`LiveInput`).
public protocol PacketSource: AnyObject {
    var streams: [StreamInfo] { get }
    /// Bytes read so far.
    var bytesRead: Int64 { get }
    /// The next packet; `nil` at the end. A stall longer than the input's timeout throws.
    func readPacket() throws -> DemuxedPacket?
}

extension MediaInput: PacketSource {}
