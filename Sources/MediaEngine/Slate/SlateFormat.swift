import MediaFormats
import MediaJob

/// What a slate must look like to pass for the stream the destinations already have (docs/ARCHITECTURE.md §4): read
/// from the stream's sequence headers (an avcC's SPS, an AudioSpecificConfig) and its measured frame rate.
public struct SlateFormat: Sendable, Equatable {
    public struct Video: Sendable, Equatable {
        public var width: Int
        public var height: Int
        /// x264's name for the SPS's profile_idc: baseline (66), main (77), high (100 and above).
        public var profile: String
        /// level_idc as x264 takes it: "3.1" for 31.
        public var level: String
        /// Frames per second as a fraction (30000/1001 for 29.97).
        public var rateNumerator: Int32
        public var rateDenominator: Int32
    }

    public struct Audio: Sendable, Equatable {
        public var sampleRate: Int
        public var channels: Int
    }

    public var video: Video?
    public var audio: Audio?

    /// Frame rates cameras and encoders use; a measured rate within 2 % of one is taken as it.
    static let standardRates: [(Int32, Int32)] = [
        (24000, 1001), (24, 1), (25, 1), (30000, 1001), (30, 1), (50, 1), (60000, 1001), (60, 1),
    ]

    /// - Throws: `SlateError` naming a codec the slate cannot match (only H.264 and AAC are encoded).
    public init(_ target: SlateTarget) throws(SlateError) {
        if let header = target.videoHeader {
            video = try SlateFormat.video(header, frameRate: target.frameRate)
        }
        if let header = target.audioHeader {
            audio = try SlateFormat.audio(header)
        }
    }

    static func video(_ body: [UInt8], frameRate: Double) throws(SlateError) -> Video {
        let record: AVCDecoderConfigurationRecord
        let sps: SequenceParameterSet
        do {
            let data = try FLVVideoData(parsing: body)
            guard let track = data.tracks.first else { throw SlateError("the video sequence header carries no track") }
            guard track.codec.fourCC == .avc1 else {
                throw SlateError("the stream's video is \(track.codec.fourCC.map { "\($0)" } ?? "a legacy FLV codec"): a slate is made for H.264 only")
            }
            record = try AVCDecoderConfigurationRecord(parsing: track.payload)
            guard let first = record.sequenceParameterSets.first else { throw SlateError("the stream's avcC has no SPS") }
            sps = try SequenceParameterSet(parsing: first)
        } catch let error as SlateError {
            throw error
        } catch {
            throw SlateError("the stream's video sequence header does not read: \(error)")
        }
        let profile = sps.profileIdc == 66 ? "baseline" : sps.profileIdc == 77 ? "main" : "high"
        let level = "\(sps.levelIdc / 10).\(sps.levelIdc % 10)"
        // The rate measured on the wire beats the SPS's VUI, which some encoders fill with a field rate or nothing.
        let (numerator, denominator) = SlateFormat.rate(frameRate > 0 ? frameRate : sps.frameRate ?? 30)
        // 4:2:0 chroma needs even sides; a cropped odd size is rounded down.
        return Video(width: max(sps.width & ~1, 16), height: max(sps.height & ~1, 16), profile: profile, level: level,
                     rateNumerator: numerator, rateDenominator: denominator)
    }

    static func audio(_ body: [UInt8]) throws(SlateError) -> Audio {
        do {
            let data = try FLVAudioData(parsing: body)
            guard let track = data.tracks.first else { throw SlateError("the audio sequence header carries no track") }
            guard track.codec.fourCC == .mp4a else {
                throw SlateError("the stream's audio is \(track.codec.fourCC.map { "\($0)" } ?? "a legacy FLV format"): slate silence is made for AAC only")
            }
            let config = try AudioSpecificConfig(parsing: track.payload)
            // Table 1.19's count; a program_config_element (0) or a reserved configuration is taken as stereo.
            let channels = config.channelCount ?? 2
            return Audio(sampleRate: config.samplingFrequency, channels: channels)
        } catch let error as SlateError {
            throw error
        } catch {
            throw SlateError("the stream's audio sequence header does not read: \(error)")
        }
    }

    /// The standard rate nearest `measured` (within 2 %), else `measured` rounded to a whole number (1…240).
    static func rate(_ measured: Double) -> (Int32, Int32) {
        guard measured.isFinite, measured > 0 else { return (30, 1) }
        if let standard = standardRates.first(where: { abs(Double($0.0) / Double($0.1) - measured) <= measured * 0.02 }) {
            return standard
        }
        return (Int32(min(max(measured.rounded(), 1), 240)), 1)
    }
}
