import CFFmpeg
import MediaFormats
import MediaJob
import MediaSinks

/// A live input's stream described for the codec job from its codec and configuration record: the `StreamInfo` (size
/// and rate from the record's SPS or sequence header, channels from the AudioSpecificConfig or OpusHead) and the
/// decoder's codec parameters, with the record as extradata in the form libavcodec's decoders read it (avcC, hvcC,
/// av1C, AudioSpecificConfig, OpusHead). VP8's and VP9's decoders take none: their vpcC stays the stream's extradata
/// only, where a copied VP9 finds it.
enum LiveCodecStream {
    /// Opus frames are 20 ms unless the encoder says otherwise (FFmpeg's libopus default, and OBS's).
    static let opusFrameMilliseconds: Int64 = 20
    /// Opus always decodes at 48 kHz (RFC 7845 §5.1: the input rate is informational).
    static let opusSampleRate = 48_000

    static func video(codec: LiveMediaTag.Codec, record: [UInt8], index: Int, announcedFrameRate: Double?,
                      pictureSize: (width: Int, height: Int)? = nil)
        throws(MediaJobError) -> (stream: StreamInfo, parameters: CodecParameters?)
    {
        var (width, height, rate) = try LiveStreamDescription.videoGeometry(codec: codec, record: record, index: index)
        if width == 0 || height == 0, let pictureSize { (width, height) = pictureSize }
        let codecID: AVCodecID
        var decoderExtradata = record
        switch codec {
        case .h264: codecID = AV_CODEC_ID_H264
        case .hevc: codecID = AV_CODEC_ID_HEVC
        case .av1: codecID = AV_CODEC_ID_AV1
        case .vp9:
            codecID = AV_CODEC_ID_VP9
            decoderExtradata = []
        case .vp8:
            codecID = AV_CODEC_ID_VP8
            decoderExtradata = []
        case .aac, .opus:
            throw .invalidStream(kind: "video", stream: index, .invalid(structure: "live video", reason: "\(codec.rawValue) is an audio codec"))
        }
        let plausible = rate.flatMap { LiveStreamDescription.plausibleFrameRates.contains($0) ? $0 : nil } ?? announcedFrameRate
        let stream = StreamInfo(index: index, kind: .video, codecName: codec.rawValue, extradata: record, timeBaseNumerator: 1,
                                timeBaseDenominator: 1000, width: width, height: height, sampleRate: 0, channels: 0,
                                averageFrameRate: plausible, isAttachedPicture: false)
        return (stream, CodecParameters(video: codecID, extradata: decoderExtradata, width: width, height: height))
    }

    static func audio(codec: LiveMediaTag.Codec, record: [UInt8], index: Int)
        throws(MediaJobError) -> (stream: StreamInfo, parameters: CodecParameters?, frameMilliseconds: Int64)
    {
        let sampleRate: Int
        let channels: Int
        let frameMilliseconds: Int64
        let codecID: AVCodecID
        do {
            switch codec {
            case .aac:
                codecID = AV_CODEC_ID_AAC
                let config = try AudioSpecificConfig(parsing: record)
                // Table 1.19's count, at most 8 (what the decoders here are opened with); a program_config_element
                // or a reserved configuration is taken as stereo.
                channels = min(config.channelCount ?? 2, 8)
                sampleRate = config.outputSamplingFrequency
                frameMilliseconds = Int64(1024 * 1000 / max(config.samplingFrequency, 1))
            case .opus:
                codecID = AV_CODEC_ID_OPUS
                let header = try OpusIDHeader(parsing: record)
                channels = Int(header.channelCount)
                sampleRate = opusSampleRate
                frameMilliseconds = opusFrameMilliseconds
            case .h264, .hevc, .av1, .vp9, .vp8:
                throw MediaFormatError.invalid(structure: "live audio", reason: "\(codec.rawValue) is a video codec")
            }
        } catch let error as MediaFormatError {
            throw .invalidStream(kind: "audio", stream: index, error)
        } catch {
            throw .invalidStream(kind: "audio", stream: index, .invalid(structure: "\(codec.rawValue) configuration", reason: "\(error)"))
        }
        let stream = StreamInfo(index: index, kind: .audio, codecName: codec.rawValue, extradata: record, timeBaseNumerator: 1,
                                timeBaseDenominator: 1000, width: 0, height: 0, sampleRate: sampleRate, channels: channels,
                                averageFrameRate: nil, isAttachedPicture: false)
        return (stream, CodecParameters(audio: codecID, extradata: record, sampleRate: sampleRate, channels: channels), frameMilliseconds)
    }
}
