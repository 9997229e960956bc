/// The input-thread side of a network output's queue (a stateful transform, STYLE §4). When the queue
/// overflows, the packet that did not fit and everything after it is dropped until the next video
/// keyframe, so the destination resumes on a decodable picture with audio alongside. A configuration
/// change carried by a dropped packet is moved onto the next packet that is queued, so no output
/// misses new SPS/PPS or a new AudioSpecificConfig.
struct KeyframeDropGate: Sendable {
    /// Whether the output takes video: without it, every audio frame is a resume point.
    let hasVideo: Bool
    private(set) var dropping = false
    /// Packets dropped so far.
    private(set) var drops = 0
    private var carriedVideo: VideoConfiguration?
    private var carriedAudio: AudioConfiguration?

    init(hasVideo: Bool) { self.hasVideo = hasVideo }

    /// The packet to offer the queue, or nil when it is dropped (still waiting for a keyframe).
    mutating func admit(_ packet: MediaPacket) -> MediaPacket? {
        if dropping {
            guard isResumePoint(packet) else {
                drop(packet)
                return nil
            }
            dropping = false
        }
        var packet = packet
        if packet.kind == .video, let carried = carriedVideo {
            if packet.videoConfiguration == nil { packet.videoConfiguration = carried }
            carriedVideo = nil
        }
        if packet.kind == .audio, let carried = carriedAudio {
            if packet.audioConfiguration == nil { packet.audioConfiguration = carried }
            carriedAudio = nil
        }
        return packet
    }

    /// The queue was full for `packet` (as returned by `admit`): drop it and wait for a keyframe.
    mutating func overflowed(with packet: MediaPacket) {
        dropping = true
        drop(packet)
    }

    /// Where a dropping output may start again.
    func isResumePoint(_ packet: MediaPacket) -> Bool {
        Self.isResumePoint(packet, hasVideo: hasVideo)
    }

    /// The same rule without a gate, for the worker thread, which must not read the input thread's gate.
    static func isResumePoint(_ packet: MediaPacket, hasVideo: Bool) -> Bool {
        hasVideo ? packet.kind == .video && packet.isKeyframe : true
    }

    private mutating func drop(_ packet: MediaPacket) {
        drops += 1
        if let changed = packet.videoConfiguration { carriedVideo = changed }
        if let changed = packet.audioConfiguration { carriedAudio = changed }
    }

    mutating func reset() {
        dropping = false
        drops = 0
        carriedVideo = nil
        carriedAudio = nil
    }
}
