// Adobe FLV v10.1 §E.4.2.1 / §E.4.3.1 and Enhanced RTMP v2: the head of a tag's data, read once for whoever forwards,
// gates or queues the tag.

/// What an FLV tag (an RTMP audio, video or data message) is to a relay: a configuration, a frame, a key frame of the
/// default track, or something to pass along. The one answer every live path uses (the relay's keyframe gate, its
/// outputs, the codec engine's input queue), read from the head of the tag's data without its payload.
public struct FLVTagHead: Sendable, Equatable {
    public enum Role: Sendable, Equatable {
        /// A video configuration (avcC, hvcC, av1C, vpcC) or an Enhanced RTMP video metadata packet.
        case videoHeader
        case videoFrame
        /// An end of sequence, a command frame, or a video tag whose head does not read.
        case otherVideo
        /// An audio configuration (AudioSpecificConfig, OpusHead) or a multichannel layout.
        case audioHeader
        case audioFrame
        /// Anything else audio, or an audio tag whose head does not read.
        case otherAudio
        /// Script data (onMetaData).
        case data
        /// Not an FLV tag type (RTMP control and command messages).
        case ignored
    }

    public let role: Role
    /// Coded frames of a key frame of the default track (0): where an output or a decoder can start.
    public let isKeyframe: Bool
    /// For a tag whose head reads: its first track in the high byte and its packet type in the low one, so an Opus
    /// track keeps both its OpusHead and its MultichannelConfig, and sorted keys replay track by track, each
    /// configuration before its channel layout or metadata. 0 otherwise.
    public let configurationKey: UInt16

    /// Coded video or audio frames (not a configuration, an end of sequence, metadata or a command).
    public var isFrame: Bool { role == .videoFrame || role == .audioFrame }

    /// The first track's id (0 outside multitrack messages, and for a head that does not read).
    public var trackID: UInt8 { UInt8(truncatingIfNeeded: configurationKey >> 8) }

    /// Reads the head of a tag.
    /// - Parameters:
    ///   - typeID: the FLV tag type, which is the RTMP message type id (8 audio, 9 video, 18 script data).
    ///   - data: the tag's data (an RTMP message body), from its AudioTagHeader or VideoTagHeader.
    public init(typeID: UInt8, data: ArraySlice<UInt8>) {
        var key: UInt16 = 0
        var keyframe = false
        switch typeID {
        case FLVTagType.video.rawValue:
            if let prefix = try? FLVVideoTagPrefix(parsing: data) {
                key = UInt16(prefix.trackID) << 8 | UInt16(prefix.packetType.rawValue)
                if prefix.isSequenceStart || !prefix.isCommand && prefix.packetType == .metadata {
                    role = .videoHeader
                } else if prefix.isCodedFrames {
                    role = .videoFrame
                    keyframe = prefix.isKeyframe && prefix.trackID == 0
                } else {
                    role = .otherVideo
                }
            } else {
                role = .otherVideo
            }
        case FLVTagType.audio.rawValue:
            if let prefix = try? FLVAudioTagPrefix(parsing: data) {
                key = UInt16(prefix.trackID) << 8 | UInt16(prefix.packetType.rawValue)
                if prefix.isConfiguration {
                    role = .audioHeader
                } else if prefix.isCodedFrames {
                    role = .audioFrame
                } else {
                    role = .otherAudio
                }
            } else {
                role = .otherAudio
            }
        case FLVTagType.scriptData.rawValue:
            role = .data
        default:
            role = .ignored
        }
        isKeyframe = keyframe
        configurationKey = key
    }
}

extension FLVStreamTag {
    /// What the tag is to a relay (`FLVTagHead`), read from its data's head.
    public var head: FLVTagHead { FLVTagHead(typeID: type.rawValue, data: data[...]) }
}
