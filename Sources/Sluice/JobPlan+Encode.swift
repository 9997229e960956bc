import MediaEngine
import MediaJob
import JobDocument

/// A job's `video` / `audio` objects as the job's stream handling (the job document: docs/ARCHITECTURE.md §8).
extension JobPlan {
    /// `live` inputs (RTMP pull or listen) get libx264's zero-latency tuning; `followsInputKeyframes` puts keyframes
    /// where the input has them (the rungs of an aligned HLS ladder) instead of every `gop_s`.
    static func videoHandling(_ spec: VideoSpec, live: Bool, followsInputKeyframes: Bool = false) -> StreamHandling<VideoEncodeSettings> {
        switch spec.mode {
        case .copy: return .copy
        case .drop: return .drop
        case .encode:
            var settings = VideoEncodeSettings()
            switch spec.encoder {
            case .auto: settings.encoder = .auto
            case .vaapi: settings.encoder = .vaapi
            case .software: settings.encoder = .software
            }
            settings.device = spec.device
            settings.bitrateKbps = spec.bitrateKbps
            settings.width = spec.width
            settings.height = spec.height
            settings.fps = spec.fps
            settings.gopSeconds = spec.gopSeconds ?? VideoEncodeSettings.defaultGOPSeconds
            settings.profile = spec.profile
            settings.live = live
            settings.keyframesFollowInput = followsInputKeyframes
            return .encode(settings)
        }
    }

    /// A WHEP output's rendition (its own, or the job's encode it takes) is Constrained Baseline unless its `profile`
    /// says otherwise: the profile every WebRTC viewer decodes (aiortc offers no other; browsers offer it first). A copy
    /// or a drop stays as it is.
    static func whepVideo(_ spec: VideoSpec) -> VideoSpec {
        guard spec.mode == .encode, spec.profile == nil else { return spec }
        var viewers = spec
        viewers.profile = "constrained_baseline"
        return viewers
    }

    static func audioHandling(_ spec: AudioSpec) -> StreamHandling<AudioEncodeSettings> {
        switch spec.mode {
        case .copy: return .copy
        case .drop: return .drop
        case .encode:
            var settings = AudioEncodeSettings()
            settings.bitrateKbps = spec.bitrateKbps ?? AudioEncodeSettings.defaultBitrateKbps
            settings.sampleRate = spec.sampleRate
            settings.channels = spec.channels
            return .encode(settings)
        }
    }
}
