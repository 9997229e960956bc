import CFFmpeg

/// What `CodecSession` reads: an opened file (`MediaInput`) or a live input from the engine (`RelayInput`).
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
    /// The demuxer's parameters of stream `index` (as the codec job numbers it), valid while the source lives.
    func codecParameters(ofStream index: Int) -> UnsafePointer<AVCodecParameters>?
}

extension MediaInput: CodecParameterSource {}
