/// Encodes a live source's decoded audio to AAC on the job's event loop: what the RTP edge decodes from a camera's
/// G.711, which no output carries. Made per run of samples by `EdgeAudioEncoderMaking` (the codec engine's, handed
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

/// Makes a live source's audio AAC where no output would carry it as it came: a WHIP publisher's Opus, which legacy
/// RTMP destinations and FLV files cannot hold. One Opus packet in, the AAC frames it completes out (48 kHz, as the
/// Opus is), on the job's event loop.
public protocol OpusAudioTranscoding: AnyObject {
    /// The AudioSpecificConfig of the frames it makes: the FLV sequence header.
    var audioSpecificConfig: [UInt8] { get }
    /// One Opus packet at `milliseconds` on the job's timeline; the AAC frames completed, each with its time, in order.
    func transcode(_ packet: [UInt8], milliseconds: Int64) throws(EncodeError) -> [(milliseconds: Int64, frame: [UInt8])]
}

/// Makes a job's AAC Opus for its WebRTC viewers, whose browsers decode no AAC: one transcoder per job and AAC
/// configuration, shared by every viewer, on the job's event loop. One AAC frame in, the 20 ms Opus frames it completes out.
public protocol AACToOpusTranscoding: AnyObject {
    /// Channels of the Opus it makes (1 or 2: more AAC channels are mixed down).
    var channels: Int { get }
    /// One raw AAC frame at `milliseconds` on the job's timeline; the Opus frames completed, each with its time, in order.
    func transcode(_ frame: [UInt8], milliseconds: Int64) throws(EncodeError) -> [(milliseconds: Int64, frame: [UInt8])]
}

/// Makes the edge's audio encoders: `PCMAudioEncoding`s, `OpusAudioTranscoding`s and `AACToOpusTranscoding`s. Sendable: one maker serves every
/// job of a worker (the codec engine's, handed down in the options so the relay does not load libav itself).
public protocol EdgeAudioEncoderMaking: Sendable {
    /// An encoder for samples at `sampleRate` with `channels` interleaved.
    func makeEncoder(sampleRate: Int, channels: Int) throws(EncodeError) -> any PCMAudioEncoding
    /// A transcoder for Opus packets of `channels` channels (48 kHz, as every Opus stream decodes).
    func makeOpusTranscoder(channels: Int) throws(EncodeError) -> any OpusAudioTranscoding
    /// A transcoder for the AAC described by `audioSpecificConfig` (an FLV sequence header's payload).
    func makeAACToOpus(audioSpecificConfig: [UInt8]) throws(EncodeError) -> any AACToOpusTranscoding
}
