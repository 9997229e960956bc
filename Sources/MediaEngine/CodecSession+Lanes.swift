import Foundation
import MediaJob
import MediaSinks

/// The output side of the input thread's session: packets of every rendition go to the lanes that take them (an
/// interleaver per lane where an encoder holds frames back), then to the lane's outputs, paced at 1x when asked and
/// cut at `max_duration_s`.
extension CodecSession {
    /// Packets of any rendition to every lane that takes their rendition, through the lane's interleaver when it has
    /// one. Packets at or past `max_duration_s` are not emitted (and end the run).
    mutating func route(_ packets: [MediaPacket]) throws {
        for packet in packets {
            for (lane, renditions) in plan.lanes.enumerated() {
                let rendition = packet.kind == .video ? renditions.video : renditions.audio
                guard rendition == packet.rendition else { continue }
                // In place: a copy out of the array would share the held packets, and each push would copy them.
                if let released = interleavers[lane]?.push(packet) {
                    for media in released { try emit(media, lane: lane) }
                } else {
                    try emit(packet, lane: lane)
                }
            }
        }
    }

    /// Whatever the interleavers still hold, in DTS order (end of input).
    mutating func flushInterleavers() throws {
        for lane in interleavers.indices {
            guard let released = interleavers[lane]?.flush() else { continue }
            for media in released { try emit(media, lane: lane) }
        }
    }

    /// Copied packets as their rendition's (nil: the kind is not copied, and there are none).
    static func tagged(_ packets: [MediaPacket], _ rendition: Int?) -> [MediaPacket] {
        guard let rendition, rendition != 0 else { return packets }
        return packets.map { packet in
            var packet = packet
            packet.rendition = rendition
            return packet
        }
    }

    mutating func emit(_ packet: MediaPacket, lane: Int) throws {
        if let limit = options.maxDuration, Double(packet.dts) / 1e6 >= limit {
            reachedMaxDuration = true
            return
        }
        if options.realtime { pace(until: packet.dts) }
        progress.mediaTime = max(progress.mediaTime, Double(packet.dts) / 1e6)
        if packet.kind == .video, lane == countedVideoLane { progress.videoFrames += 1 }
        if packet.kind == .audio, lane == countedAudioLane { progress.audioFrames += 1 }
        let outputs = laneOutputs[lane]
        for output in outputs where (packet.kind == .video ? output.wantsVideo : output.wantsAudio) && !output.submit(packet) {
            throw MediaJobError.output(index: output.index, name: output.name, output.error ?? OutputError.unsupported(output: output.name, reason: "stopped"))
        }
    }

    /// Sleeps until the wall clock catches up with media time (like `ffmpeg -re`).
    mutating func pace(until dts: Int64) {
        let now = Interrupter.now()
        let start = realtimeStart ?? now
        realtimeStart = start
        // Saturating: a DTS of centuries (crafted, or a clock offset) waits in 1 s steps instead of trapping.
        let (mediaNanoseconds, tooLong) = UInt64(max(dts, 0)).multipliedReportingOverflow(by: 1000)
        let (sum, pastEnd) = start.addingReportingOverflow(mediaNanoseconds)
        let due = tooLong || pastEnd ? UInt64.max : sum
        if due > now { usleep(UInt32(min((due - now) / 1000, 1_000_000))) }
    }
}
