/// Encodes a live source's decoded audio to AAC on the job's event loop: what the RTP edge decodes from a camera's
/// G.711, which no output carries. Made per run of samples by `PCMAudioEncoderMaking` (the codec engine's, handed
/// down in the job's options so the relay does not load libav itself). One 8 kHz mono stream is a few AAC frames a
/// second: cheap enough for the loop.
public protocol PCMAudioEncoding: AnyObject {
    /// The AudioSpecificConfig of the frames it makes: the FLV sequence header.
    var audioSpecificConfig: [UInt8] { get }
    /// 16-bit samples, channels interleaved, continuing the run (the first call's `milliseconds` places the run on the
    /// job's timeline; later calls' only say where the caller thinks they fall). Returns the AAC frames completed, each
    /// with its time in milliseconds, in order.
    func encode(_ samples: [Int16], milliseconds: Int64) throws(EncodeError) -> [(milliseconds: Int64, frame: [UInt8])]
}

/// Makes `PCMAudioEncoding`s. Sendable: one maker serves every job of a worker.
public protocol PCMAudioEncoderMaking: Sendable {
    /// An encoder for samples at `sampleRate` with `channels` interleaved.
    func makeEncoder(sampleRate: Int, channels: Int) throws(EncodeError) -> any PCMAudioEncoding
}
