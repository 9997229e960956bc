import Foundation

/// Decoded-frame hashes from `ffmpeg -f framemd5`: the referee for lossless copy. Only the hash column
/// is compared, in output order; timestamps are checked separately where they matter.
enum FrameHashes {
    enum Kind: String { case video = "v", audio = "a" }

    /// Hashes of every decoded frame of the first stream of `kind` in `path`.
    static func of(_ path: String, _ kind: Kind, inputOptions: [String] = []) throws -> [String] {
        var options = inputOptions
        if path.hasSuffix(".mp4") || path.hasSuffix(".mov") {
            // FLV and ADTS cannot express an MP4 edit list (nor iTunSMPB): decode every stored frame, priming included.
            options += ["-ignore_editlist", "1", "-flags2", "+skip_manual"]
        } else if path.hasSuffix(".m3u8") {
            // An HLS init segment's iTunSMPB makes the decoder skip the priming: every stored frame, as for .mp4.
            options += ["-flags2", "+skip_manual"]
        }
        // Every decoded frame, none dropped or duplicated by ffmpeg's own frame-rate handling.
        let sync = kind == .video ? ["-fps_mode", "passthrough"] : []
        let result = try Command.run("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error"] + options
            + ["-i", path, "-map", "0:\(kind.rawValue):0"] + sync + ["-f", "framemd5", "-"])
        return result.text.split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#") else { return nil }
            return line.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }
}
