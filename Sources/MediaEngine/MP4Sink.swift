import MediaFormats
import MediaJob

/// A fragmented MP4 file (`.mp4`): the init segment (`ftyp`, `moov` with `mvex`), then a `moof` + `mdat` fragment
/// about every second (`FragmentedMP4Stream`).
final class MP4Sink: PacketSink {
    let file: FileWriter
    let wantsVideo: Bool
    let wantsAudio: Bool
    var bytesWritten: Int64 { file.bytesWritten }
    var skippedBeforeConfiguration: Int { stream.skippedBeforeConfiguration }
    private var stream: FragmentedMP4Stream

    init(file: FileWriter, name: String, video: VideoConfiguration?, audio: AudioConfiguration?) throws {
        self.file = file
        stream = try FragmentedMP4Stream(name: name, video: video, audio: audio)
        wantsVideo = video != nil
        wantsAudio = audio != nil
    }

    func open() throws {
        if let initSegment = try stream.initSegment() { try file.write(initSegment) }
    }

    func write(_ packet: MediaPacket) throws {
        let (initSegment, fragments) = try stream.append(packet)
        if let initSegment { try file.write(initSegment) }
        for fragment in fragments { try file.write(fragment.bytes) }
    }

    func finish() throws {
        if let fragment = try stream.finish() { try file.write(fragment.bytes) }
        try file.close()
    }

    func abandon() { file.discard() }
}
