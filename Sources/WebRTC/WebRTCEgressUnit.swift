// RFC 6184 §5.7.1 and §5.8 (STAP-A, FU-A) and RFC 7587 (Opus over RTP): what one of a job's FLV tags becomes for its
// WHEP viewers, worked out once for all of them.
import MediaFormats

/// One tag of the job as every WHEP viewer receives it, before numbering: H.264 cut into RTP payloads (the parameter
/// sets in band before a keyframe that lacks them), or an Opus frame. A job with a hundred viewers parses and cuts each
/// tag once; each viewer then only numbers the payloads with its own SSRC, sequence and timestamp offset, and the
/// payloads' storage is shared by every viewer's history.
public enum WebRTCEgressUnit: Sendable, Equatable {
    /// An AVC sequence header: a viewer starts at the next keyframe from here on.
    case videoConfiguration
    /// One access unit's RTP payloads in order; `milliseconds` is its presentation time on the job's timeline.
    case video(payloads: [[UInt8]], keyframe: Bool, milliseconds: Int64)
    /// One Opus frame at `milliseconds` on the job's timeline.
    case opus([UInt8], milliseconds: Int64)
    /// A tag of a codec WHEP viewers do not receive (AAC audio, HEVC video …).
    case notCarried
    /// A tag that did not parse.
    case malformed
    /// Nothing to send: script data, an OpusHead, an end of sequence, RTMP's empty silence frames.
    case nothing
}

/// Makes the units of one job's tags, in the order the job sends them; it keeps the last sequence header's parameter
/// sets and NAL unit length size, which the coded frames after it need.
public struct WebRTCEgressPackager: Sendable {
    private let packetizer: H264Packetizer
    /// The parameter sets of the last AVC sequence header (SPS then PPS), and its NAL unit length size.
    private var parameterSets: [[UInt8]] = []
    private var lengthSize = 4

    /// - Parameter maxPayloadSize: the largest RTP payload (RFC 6184's packets are cut to fit it).
    public init(maxPayloadSize: Int = H264Packetizer.defaultMaxPayloadSize) {
        // Only the payloads are used: the packet fields are each viewer's.
        packetizer = H264Packetizer(payloadType: 0, ssrc: 0, sequenceNumber: 0, maxPayloadSize: maxPayloadSize)
    }

    /// The unit of `tag` (legacy AVC or Enhanced avc1 video, Enhanced Opus audio).
    public mutating func unit(of tag: FLVStreamTag) -> WebRTCEgressUnit {
        switch tag.type {
        case .video: video(tag)
        case .audio: audio(tag)
        case .scriptData: .nothing
        }
    }

    private mutating func video(_ tag: FLVStreamTag) -> WebRTCEgressUnit {
        guard let data = try? FLVVideoData(parsing: tag.data) else { return .malformed }
        guard let track = data.tracks.first, track.codec.fourCC == .avc1 else { return .notCarried }
        if data.isSequenceStart {
            guard let record = try? AVCDecoderConfigurationRecord(parsing: Array(track.payload)) else { return .malformed }
            parameterSets = record.sequenceParameterSets + record.pictureParameterSets
            lengthSize = record.nalUnitLengthSize
            return .videoConfiguration
        }
        guard data.packetType == .codedFrames || data.packetType == .codedFramesX else { return .nothing }
        guard var nalUnits = try? AVCC.nalUnits(in: Array(track.payload), lengthSize: lengthSize).map(Array.init) else { return .malformed }
        // A keyframe a viewer can start at: an IDR, and parameter sets known to send before it.
        let keyframe = data.isKeyframe && !parameterSets.isEmpty && nalUnits.contains { $0.first.map { $0 & 0x1F == 5 } ?? false }
        // In-band copies first, as a browser decodes an IDR only after its SPS and PPS.
        if keyframe, !nalUnits.contains(where: { $0.first.map { $0 & 0x1F == 7 } ?? false }) { nalUnits = parameterSets + nalUnits }
        return .video(payloads: packetizer.payloads(of: nalUnits), keyframe: keyframe,
                      milliseconds: tag.timestamp + Int64(track.compositionTime))
    }

    private func audio(_ tag: FLVStreamTag) -> WebRTCEgressUnit {
        guard let data = try? FLVAudioData(parsing: tag.data) else { return .malformed }
        guard let track = data.tracks.first, track.codec.fourCC == .opus else { return .notCarried }
        // The OpusHead says nothing RTP carries (RFC 7587 §4: the SDP does); empty frames are RTMP's silence.
        guard data.packetType == .codedFrames, !track.payload.isEmpty else { return .nothing }
        return .opus(Array(track.payload), milliseconds: tag.timestamp)
    }
}
