import Foundation

/// ffprobe as the referee for encode mode: stream parameters and decoded frames, read from its JSON.
enum Probe {
    struct Stream {
        var codec: String
        var profile: String?
        var width: Int?
        var height: Int?
        var sampleRate: Int?
        var channels: Int?
        var channelLayout: String?
    }

    struct Frame {
        /// Presentation time, seconds.
        var time: Double
        var isKeyframe: Bool
        /// Audio: samples per channel.
        var samples: Int?
    }

    /// Every stream of `path` of `kind` (`v` or `a`).
    static func streams(_ path: String, _ kind: String) throws -> [Stream] {
        let json = try run(["-select_streams", kind, "-show_streams", path])
        return (json["streams"] as? [[String: Any]] ?? []).map { stream in
            Stream(codec: stream["codec_name"] as? String ?? "",
                   profile: stream["profile"] as? String,
                   width: stream["width"] as? Int,
                   height: stream["height"] as? Int,
                   sampleRate: (stream["sample_rate"] as? String).flatMap { Int($0) },
                   channels: stream["channels"] as? Int,
                   channelLayout: stream["channel_layout"] as? String)
        }
    }

    /// Decoded frames of the first stream of `kind`, in presentation order.
    static func frames(_ path: String, _ kind: String) throws -> [Frame] {
        let json = try run(["-select_streams", "\(kind):0", "-show_entries", "frame=pts_time,key_frame,nb_samples", path])
        return (json["frames"] as? [[String: Any]] ?? []).compactMap { frame in
            guard let time = (frame["pts_time"] as? String).flatMap({ Double($0) }) else { return nil }
            return Frame(time: time, isKeyframe: frame["key_frame"] as? Int == 1, samples: frame["nb_samples"] as? Int)
        }.sorted { $0.time < $1.time }
    }

    /// How many frames of the first stream of `kind` decode (raw `.h264` frames carry no timestamps to list).
    static func frameCount(_ path: String, _ kind: String) throws -> Int {
        let json = try run(["-count_frames", "-select_streams", "\(kind):0", "-show_entries", "stream=nb_read_frames", path])
        let streams = json["streams"] as? [[String: Any]] ?? []
        return (streams.first?["nb_read_frames"] as? String).flatMap { Int($0) } ?? 0
    }

    /// What ffmpeg reports while decoding all of `path` (empty: it decodes cleanly). The pictures keep the file's own
    /// time base (`-enc_time_base:v -1`): at ffmpeg's default, 1/the frame rate it guesses, two frames of a variable-rate
    /// source closer than one frame (Chromium's camera under load) land on one tick and its null muxer reports
    /// "non monotonically increasing dts" of its own output, not of the file. Times that go back in the file still do.
    static func decodeErrors(_ path: String) throws -> String {
        try Command.run("ffmpeg", ["-hide_banner", "-nostdin", "-v", "error", "-i", path, "-enc_time_base:v", "-1", "-f", "null", "-"]).stderr
    }

    /// The decode times of the packets of the first stream of `kind`, in the stream's time base, in file order.
    static func decodeTimes(_ path: String, _ kind: String) throws -> [Int] {
        try Command.run("ffprobe", ["-v", "error", "-select_streams", "\(kind):0", "-show_entries", "packet=dts", "-of", "csv=p=0", path])
            .text.split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    private static func run(_ arguments: [String]) throws -> [String: Any] {
        let result = try Command.run("ffprobe", ["-v", "error", "-of", "json"] + arguments)
        return try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any] ?? [:]
    }
}
