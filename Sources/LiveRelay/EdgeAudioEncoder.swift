import MediaFormats
import MediaJob

/// A camera's G.711, decoded at the RTP edge, made AAC tags on the session's loop: an encoder from the job's
/// `edgeAudioEncoder` for each unbroken run of samples, the sequence header before the first frame (and again only if a new
/// run's configuration differs).
final class EdgeAudioEncoder {
    private let maker: any EdgeAudioEncoderMaking
    private var encoder: (any PCMAudioEncoding)?
    private var sentConfiguration: [UInt8]?

    init(maker: any EdgeAudioEncoderMaking) {
        self.maker = maker
    }

    /// The tags `block` completes (an AAC frame is 1,024 samples: most blocks complete none or one).
    func encode(_ block: EdgePCMBlock) throws(EncodeError) -> [FLVStreamTag] {
        let current: any PCMAudioEncoding
        if let encoder, !block.startsRun {
            current = encoder
        } else {
            current = try maker.makeEncoder(sampleRate: block.sampleRate, channels: block.channels)
            encoder = current
        }
        let frames = try current.encode(block.samples, milliseconds: block.milliseconds)
        guard let first = frames.first else { return [] }
        var tags: [FLVStreamTag] = []
        if sentConfiguration != current.audioSpecificConfig {
            sentConfiguration = current.audioSpecificConfig
            tags.append(FLVStreamTag(type: .audio, timestamp: first.milliseconds, data: FLVAudioTagHeader.aacBody(.sequenceHeader, current.audioSpecificConfig)))
        }
        for frame in frames {
            tags.append(FLVStreamTag(type: .audio, timestamp: frame.milliseconds, data: FLVAudioTagHeader.aacBody(.raw, frame.frame)))
        }
        return tags
    }
}
