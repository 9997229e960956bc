import Foundation

extension Fixtures {
    /// Live-style test media: 320x240 30 fps, a keyframe every second (players join quickly), AAC 48 kHz.
    /// Without PNS: its noise comes from a generator the decoder carries across frames, so a player that
    /// joins mid-stream would decode noise bands differently forever, though the packets are identical.
    static func live(seconds: Int) throws -> String {
        try make("live-\(seconds)s.mp4", video() + audio() + ["-t", String(seconds)] + x264
                 + ["-bf", "2", "-c:a", "aac", "-aac_pns", "0", "-b:a", "96k", "-shortest"])
    }
}
