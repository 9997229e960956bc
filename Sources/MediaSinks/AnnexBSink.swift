import MediaFormats
import MediaJob

/// A raw Annex B byte stream: H.264 (`.h264`) or HEVC (`.h265`, `.hevc`), through `AnnexBConversion`.
package final class AnnexBSink: PacketSink {
    package let file: FileWriter
    private var conversion: AnnexBConversion

    package let wantsVideo = true
    package let wantsAudio = false
    package var bytesWritten: Int64 { file.bytesWritten }

    package init(file: FileWriter, video: VideoConfiguration) throws {
        self.file = file
        conversion = try AnnexBConversion(video.bitstream)
    }

    package func open() throws {}

    package func write(_ packet: MediaPacket) throws {
        if let changed = packet.videoConfiguration { try conversion.update(to: changed.bitstream) }
        // Converted straight into the sink's buffer; a packet that fails to convert leaves nothing in it.
        try packet.data.withUnsafeBytes { bytes in
            _ = try file.append { try conversion.convert(bytes, into: &$0) }
        }
    }

    package func finish() throws { try file.close() }
    package func abandon() { file.discard() }
}

extension AnnexBSink {
    /// The codec an Annex B file's extension names (`.h264`, `.264`, `.avc`: H.264; `.h265`, `.265`, `.hevc`: HEVC);
    /// nil when it names none (`format: annexb` on another name), which takes either.
    package static func codecNamed(byPath path: String) -> String? {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: ".") else { return nil }
        switch name[name.index(after: dot)...].lowercased() {
        case "h264", "264", "avc": return "H.264"
        case "h265", "265", "hevc": return "HEVC"
        default: return nil
        }
    }

    /// Refuses, before the file is created, video the output cannot hold: AV1, VP9 or VP8, or a codec its extension does
    /// not name.
    package static func checkCodec(_ bitstream: VideoBitstream, path: String, output: String) throws {
        switch bitstream {
        case .av1, .vp9, .vp8:
            throw OutputError.unsupported(output: output, reason: "the video is \(bitstream.codecName), which has no Annex B byte stream (write it to .mp4 or .flv)")
        case .avcc, .annexB, .hvcc:
            break
        }
        if let named = codecNamed(byPath: path), named != bitstream.codecName {
            let fits = bitstream.codecName == "HEVC" ? ".h265 or .hevc" : ".h264"
            throw OutputError.unsupported(
                output: output, reason: "an Annex B file named for \(named) cannot hold this video, which is \(bitstream.codecName) (name it \(fits))")
        }
    }
}
