import CFFmpeg

/// What `CopySession` reads: an opened input (`MediaInput`) or a live one that reconnects (`LiveInput`).
public protocol PacketSource: AnyObject {
    var streams: [StreamInfo] { get }
    /// Bytes read so far.
    var bytesRead: Int64 { get }
    /// The next packet; `nil` at the end. A stall longer than the input's timeout throws.
    func readPacket() throws -> DemuxedPacket?
}

extension MediaInput: PacketSource {}

/// A source that can hand a decoder its codec parameters (encode mode). Internal: C types stay in MediaEngine.
protocol CodecParameterSource {
    /// The demuxer's parameters of stream `index` (as the pipeline numbers it), valid while the source lives.
    func codecParameters(ofStream index: Int) -> UnsafePointer<AVCodecParameters>?
}

extension MediaInput: CodecParameterSource {}

extension LiveInput: CodecParameterSource {
    /// The connection open now; a reconnect may renumber streams, so the pipeline's index is mapped first.
    func codecParameters(ofStream index: Int) -> UnsafePointer<AVCodecParameters>? {
        currentCodecParameters(ofStream: index)
    }
}
