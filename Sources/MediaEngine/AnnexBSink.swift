import MediaFormats
import MediaJob

/// A raw Annex B byte stream: H.264 (`.h264`) or HEVC (`.h265`, `.hevc`). Length-prefixed input is converted with the
/// parameter sets inserted before every IDR (H.264) or IRAP picture (HEVC) that lacks them; H.264 Annex B input passes
/// through with the same insertion.
final class AnnexBSink: PacketSink {
    private enum Conversion {
        case fromAVCC(AVCCToAnnexBConverter)
        case passThrough(AnnexBParameterSetInjector)
        case fromHVCC(HVCCToAnnexBConverter)
    }

    let file: FileWriter
    private var conversion: Conversion

    let wantsVideo = true
    let wantsAudio = false
    var bytesWritten: Int64 { file.bytesWritten }

    init(file: FileWriter, video: VideoConfiguration) throws {
        self.file = file
        self.conversion = try AnnexBSink.conversion(for: video.bitstream)
    }

    private static func conversion(for bitstream: VideoBitstream) throws -> Conversion {
        switch bitstream {
        case let .avcc(record): return .fromAVCC(try AVCCToAnnexBConverter(record: record))
        case let .annexB(extradata): return .passThrough(try AnnexBParameterSetInjector(extradata: extradata))
        case let .hvcc(record): return .fromHVCC(try HVCCToAnnexBConverter(record: record))
        case .av1:
            throw MediaFormatError.unsupported(structure: "Annex B output", reason: "AV1 has no Annex B byte stream")
        }
    }

    func open() throws {}

    func write(_ packet: MediaPacket) throws {
        if let changed = packet.videoConfiguration {
            switch (conversion, changed.bitstream) {
            case (.fromAVCC(var converter), let .avcc(record)):
                try converter.update(record: record)
                conversion = .fromAVCC(converter)
            default:
                conversion = try AnnexBSink.conversion(for: changed.bitstream)
            }
        }
        // Converted straight into the sink's buffer; a packet that fails to convert leaves nothing in it.
        try packet.data.withUnsafeBytes { bytes in
            try file.append { buffer in
                switch conversion {
                case var .fromAVCC(converter):
                    _ = try converter.convert(bytes, into: &buffer)
                    conversion = .fromAVCC(converter)
                case var .passThrough(injector):
                    _ = try injector.convert(bytes, into: &buffer)
                    conversion = .passThrough(injector)
                case var .fromHVCC(converter):
                    _ = try converter.convert(bytes, into: &buffer)
                    conversion = .fromHVCC(converter)
                }
            }
        }
    }

    func finish() throws { try file.close() }
    func abandon() { file.discard() }
}

extension AnnexBSink {
    /// The codec an Annex B file's extension names (`.h264`, `.264`, `.avc`: H.264; `.h265`, `.265`, `.hevc`: HEVC);
    /// nil when it names none (`format: annexb` on another name), which takes either.
    static func codecNamed(byPath path: String) -> String? {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: ".") else { return nil }
        switch name[name.index(after: dot)...].lowercased() {
        case "h264", "264", "avc": return "H.264"
        case "h265", "265", "hevc": return "HEVC"
        default: return nil
        }
    }

    /// Refuses, before the file is created, video the output cannot hold: AV1, or a codec its extension does not name.
    static func checkCodec(_ bitstream: VideoBitstream, path: String, output: String) throws {
        if case .av1 = bitstream {
            throw OutputError.unsupported(output: output, reason: "the video is AV1, which has no Annex B byte stream (write it to .flv)")
        }
        if let named = codecNamed(byPath: path), named != bitstream.codecName {
            let fits = bitstream.codecName == "HEVC" ? ".h265 or .hevc" : ".h264"
            throw OutputError.unsupported(
                output: output, reason: "an Annex B file named for \(named) cannot hold this video, which is \(bitstream.codecName) (name it \(fits))")
        }
    }
}
