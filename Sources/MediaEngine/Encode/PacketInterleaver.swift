import MediaFormats
import MediaSinks

/// Orders the packets of a video and an audio stream by DTS (a stateful transform: a struct with mutating methods). An encoder
/// holds frames back (x264's lookahead, B-frames), so without this the audio of a moment would reach the
/// outputs well before its video. Each stream's own order is kept; a packet leaves once the other stream
/// has one at least as late, or once its stream has run `maxSpread` ahead (a stream that went quiet).
struct PacketInterleaver: Sendable {
    private var video = PacketQueue()
    private var audio = PacketQueue()

    /// How far one stream may run ahead of a silent other before packets leave anyway, microseconds.
    static let maxSpread: Int64 = 3_000_000

    init() {}

    /// Takes one packet; returns the packets that may now leave, in DTS order.
    mutating func push(_ packet: MediaPacket) -> [MediaPacket] {
        if packet.kind == .video { video.append(packet) } else { audio.append(packet) }
        var released: [MediaPacket] = []
        while let next = nextReady() { released.append(next) }
        return released
    }

    /// Everything still held, in DTS order (end of input).
    mutating func flush() -> [MediaPacket] {
        var released: [MediaPacket] = []
        while let v = video.first, let a = audio.first {
            released.append(a.dts < v.dts ? audio.removeFirst() : video.removeFirst())
        }
        while !video.isEmpty { released.append(video.removeFirst()) }
        while !audio.isEmpty { released.append(audio.removeFirst()) }
        return released
    }

    mutating func reset() {
        video = PacketQueue()
        audio = PacketQueue()
    }

    private mutating func nextReady() -> MediaPacket? {
        switch (video.first, audio.first) {
        case let (v?, a?):
            return a.dts < v.dts ? audio.removeFirst() : video.removeFirst()
        case (_?, nil):
            return video.spread > PacketInterleaver.maxSpread ? video.removeFirst() : nil
        case (nil, _?):
            return audio.spread > PacketInterleaver.maxSpread ? audio.removeFirst() : nil
        case (nil, nil):
            return nil
        }
    }
}

/// A FIFO of packets that removes from the front without shifting the array each time.
private struct PacketQueue: Sendable {
    private var items: [MediaPacket] = []
    private var head = 0

    var isEmpty: Bool { head == items.count }
    var first: MediaPacket? { isEmpty ? nil : items[head] }
    /// DTS distance from the oldest to the newest packet held.
    var spread: Int64 {
        guard let first, let last = items.last else { return 0 }
        return last.dts.subtractingSaturating(first.dts)
    }

    mutating func append(_ packet: MediaPacket) { items.append(packet) }

    mutating func removeFirst() -> MediaPacket {
        let packet = items[head]
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 256 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        return packet
    }
}
