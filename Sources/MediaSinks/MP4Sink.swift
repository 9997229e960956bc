import MediaFormats
import MediaJob

/// A fragmented MP4 file (`.mp4`): the init segment (`ftyp`, `moov` with `mvex`), then a `moof` + `mdat` fragment
/// about every second (`FragmentedMP4Stream`).
package final class MP4Sink: PacketSink {
    package let file: FileWriter
    package let wantsVideo: Bool
    package let wantsAudio: Bool
    package var bytesWritten: Int64 { file.bytesWritten }
    package var skippedBeforeConfiguration: Int { stream.skippedBeforeConfiguration }
    private var stream: FragmentedMP4Stream

    package init(file: FileWriter, name: String, video: VideoConfiguration?, audio: AudioConfiguration?) throws {
        self.file = file
        stream = try FragmentedMP4Stream(name: name, video: video, audio: audio)
        wantsVideo = video != nil
        wantsAudio = audio != nil
    }

    package func open() throws {
        if let initSegment = try stream.initSegment() { try file.write(initSegment) }
    }

    package func write(_ packet: MediaPacket) throws {
        let (initSegment, fragments) = try stream.append(packet)
        if let initSegment { try file.write(initSegment) }
        for fragment in fragments { try file.write(fragment.bytes) }
    }

    package func finish() throws {
        let (initSegment, fragments) = try stream.releaseHeld()
        if let initSegment { try file.write(initSegment) }
        for fragment in fragments { try file.write(fragment.bytes) }
        if let fragment = try stream.finish() { try file.write(fragment.bytes) }
        try file.close()
    }

    package func abandon() { file.discard() }
}
