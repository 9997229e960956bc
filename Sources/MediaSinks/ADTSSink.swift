import MediaFormats
import MediaJob

/// Raw AAC with an ADTS header before every frame (`.aac`). ADTS carries object types 1–4 only;
/// anything else is refused when the output opens, before a byte is written.
package final class ADTSSink: PacketSink {
    package let file: FileWriter
    private let name: String
    private var config: AudioSpecificConfig

    package let wantsVideo = false
    package let wantsAudio = true
    package var bytesWritten: Int64 { file.bytesWritten }

    /// Throws when the stream is not AAC, or its AudioSpecificConfig cannot be carried in ADTS (e.g. AAC-ELD).
    package init(file: FileWriter, name: String, audio: AudioConfiguration) throws {
        self.file = file
        self.name = name
        self.config = try Self.carried(audio, output: name)
    }

    /// The AAC configuration ADTS carries, checked on a header of no payload; Opus is refused by name.
    package static func carried(_ audio: AudioConfiguration, output: String) throws -> AudioSpecificConfig {
        guard let config = audio.audioSpecificConfig else {
            throw OutputError.unsupported(output: output, reason: "the audio is \(audio.codecName), which ADTS does not carry (write it to .mp4, HLS or .flv)")
        }
        _ = try ADTSHeader(audioSpecificConfig: config, payloadLength: 0)
        return config
    }

    package func open() throws {}

    package func write(_ packet: MediaPacket) throws {
        if let changed = packet.audioConfiguration { config = try Self.carried(changed, output: name) }
        let header = try ADTSHeader(audioSpecificConfig: config, payloadLength: packet.data.count)
        try file.append { buffer in
            header.write(into: &buffer)
            buffer.append(contentsOf: packet.data)
        }
    }

    package func finish() throws { try file.close() }
    package func abandon() { file.discard() }
}
