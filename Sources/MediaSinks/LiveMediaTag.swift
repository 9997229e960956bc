// Adobe FLV v10.1 §E.4.2.1 / §E.4.3.1 and Enhanced RTMP v2 "Enhanced Audio" / "Enhanced Video", read for decoding.
import MediaFormats
import MediaJob

/// A live input's video or audio tag as the codec engine reads it, legacy or Enhanced RTMP: the codec, and whether
/// the tag configures it or carries a frame. A multitrack message gives its default track (0) only.
package struct LiveMediaTag {
    /// The codecs the codec job decodes from a live input, by FFmpeg's names.
    package enum Codec: String, Sendable {
        case h264, hevc, av1, vp9, vp8, aac, opus
    }

    package enum Content: Equatable {
        /// The codec's configuration record: avcC, hvcC, av1C, vpcC, AudioSpecificConfig, OpusHead.
        case configuration([UInt8])
        /// One frame; `compositionTime` is PTS − DTS in milliseconds.
        case frame(ArraySlice<UInt8>, compositionTime: Int32, isKeyframe: Bool)
        /// Nothing to decode (an end of sequence, metadata, a command frame, a multichannel layout).
        case none
    }

    /// nil for a command frame, which names no codec.
    package var codec: Codec?
    package var content: Content

    private static let videoCodecs: [FLVVideoFourCC: Codec] = [.avc1: .h264, .hvc1: .hevc, .av01: .av1, .vp09: .vp9, .vp08: .vp8]
    private static let audioCodecs: [FLVAudioFourCC: Codec] = [.mp4a: .aac, .opus: .opus]

    /// Reads a video tag's body.
    /// - Throws: `unsupportedLiveCodec` naming a codec the codec job cannot decode, or a tag that does not parse.
    package init(video body: [UInt8]) throws(MediaJobError) {
        let data: FLVVideoData
        do { data = try FLVVideoData(parsing: body) } catch {
            throw .unsupportedLiveCodec(kind: "video", codec: LiveStreamDescription.videoCodecName(body))
        }
        guard let track = data.tracks.first(where: { $0.id == 0 }) ?? data.tracks.first else {
            // An ex-header command frame: no codec, nothing to decode.
            codec = nil
            content = .none
            if data.isEnhanced { return }
            throw .unsupportedLiveCodec(kind: "video", codec: LiveStreamDescription.videoCodecName(body))
        }
        guard let fourCC = track.codec.fourCC, let known = LiveMediaTag.videoCodecs[fourCC] else {
            throw .unsupportedLiveCodec(kind: "video", codec: LiveStreamDescription.videoCodecName(body))
        }
        codec = known
        switch data.packetType {
        case .sequenceStart where data.command == nil:
            content = .configuration(Array(track.payload))
        case .codedFrames, .codedFramesX:
            content = data.command == nil && !track.payload.isEmpty
                ? .frame(track.payload, compositionTime: track.compositionTime, isKeyframe: data.frameType == .keyFrame)
                : .none
        default:
            content = .none
        }
    }

    /// Reads an audio tag's body.
    /// - Throws: `unsupportedLiveCodec` naming a codec the codec job cannot decode, or a tag that does not parse.
    package init(audio body: [UInt8]) throws(MediaJobError) {
        let data: FLVAudioData
        do { data = try FLVAudioData(parsing: body) } catch {
            throw .unsupportedLiveCodec(kind: "audio", codec: LiveStreamDescription.audioCodecName(body))
        }
        let track = data.tracks.first(where: { $0.id == 0 }) ?? data.tracks.first
        let known: Codec?
        switch track?.codec {
        case .legacy(.aac)?: known = .aac
        case let .fourCC(fourCC)?: known = LiveMediaTag.audioCodecs[fourCC]
        default: known = nil
        }
        guard let track, let known else {
            throw .unsupportedLiveCodec(kind: "audio", codec: LiveStreamDescription.audioCodecName(body))
        }
        codec = known
        switch data.packetType {
        case .sequenceStart: content = .configuration(Array(track.payload))
        case .codedFrames: content = track.payload.isEmpty ? .none : .frame(track.payload, compositionTime: 0, isKeyframe: true)
        default: content = .none
        }
    }
}
