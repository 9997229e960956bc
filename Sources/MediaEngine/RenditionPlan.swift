/// Which treatment of each stream kind every output of a job takes (a pure value, built once).
///
/// Each distinct `StreamHandling` among the outputs is one *rendition*: copy, or one encoder's settings. Outputs
/// with equal settings share a rendition, so one encoder feeds them all; every video rendition shares the one
/// decode of the input's video (and every audio rendition the one decode of its audio). A *lane* is the pair of
/// renditions an output takes: its packets are interleaved by DTS once per lane, then go to the lane's outputs.
import MediaJob
struct RenditionPlan: Sendable, Equatable {
    /// The distinct video treatments, in the order outputs first use them (`drop` is none).
    let video: [StreamHandling<VideoEncodeSettings>]
    let audio: [StreamHandling<AudioEncodeSettings>]
    /// The distinct (video, audio) pairs outputs take; nil where the output takes none of that kind.
    let lanes: [Lane]
    /// For each output, its lane.
    let outputLanes: [Int]

    struct Lane: Sendable, Equatable, Hashable {
        var video: Int?
        var audio: Int?
    }

    init(_ options: MediaJobOptions) {
        var video: [StreamHandling<VideoEncodeSettings>] = []
        var audio: [StreamHandling<AudioEncodeSettings>] = []
        var lanes: [Lane] = []
        var outputLanes: [Int] = []
        for output in options.outputs {
            var lane = Lane()
            let videoHandling = output.video ?? options.video
            if output.carriesVideo, videoHandling != .drop {
                if let known = video.firstIndex(of: videoHandling) { lane.video = known } else {
                    lane.video = video.count
                    video.append(videoHandling)
                }
            }
            let audioHandling = output.audio ?? options.audio
            if output.carriesAudio, audioHandling != .drop {
                if let known = audio.firstIndex(of: audioHandling) { lane.audio = known } else {
                    lane.audio = audio.count
                    audio.append(audioHandling)
                }
            }
            if let known = lanes.firstIndex(of: lane) { outputLanes.append(known) } else {
                outputLanes.append(lanes.count)
                lanes.append(lane)
            }
        }
        self.video = video
        self.audio = audio
        self.lanes = lanes
        self.outputLanes = outputLanes
    }

    /// The video rendition that copies, if one does.
    var copiedVideo: Int? { video.firstIndex(of: .copy) }
    var copiedAudio: Int? { audio.firstIndex(of: .copy) }

    /// The encode renditions of each kind with their settings.
    var encodedVideo: [(rendition: Int, settings: VideoEncodeSettings)] {
        video.enumerated().compactMap { index, handling in
            if case let .encode(settings) = handling { return (index, settings) }
            return nil
        }
    }

    var encodedAudio: [(rendition: Int, settings: AudioEncodeSettings)] {
        audio.enumerated().compactMap { index, handling in
            if case let .encode(settings) = handling { return (index, settings) }
            return nil
        }
    }

    /// A lane orders its two streams by DTS when an encoder in it holds frames back; two copied streams already
    /// arrive in the input's order.
    func interleaves(_ lane: Lane) -> Bool {
        guard let v = lane.video, let a = lane.audio else { return false }
        return video[v] != .copy || audio[a] != .copy
    }
}
