import MediaFormats

/// FLV to a file: the file header, then `FLVMuxer`'s tags; at the end a seekable file gets its real `duration` and
/// `filesize` patched into `onMetaData`.
package final class FLVSink: PacketSink {
    package let file: FileWriter
    private let name: String
    private var muxer: FLVMuxer
    private var metadataOffsets: [String: Int] = [:]
    private var metadataStart: Int64 = 0

    package let wantsVideo: Bool
    package let wantsAudio: Bool
    package var bytesWritten: Int64 { file.bytesWritten }
    /// Video packets dropped because no SPS/PPS had been seen yet (a stream cut mid-GOP).
    package var skippedBeforeConfiguration: Int { muxer.skippedBeforeConfiguration }

    package init(file: FileWriter, name: String, video: VideoConfiguration?, audio: AudioConfiguration?) {
        self.file = file
        self.name = name
        self.muxer = FLVMuxer(video: video, audio: audio)
        self.wantsVideo = video != nil
        self.wantsAudio = audio != nil
    }

    /// Tags are built straight into the sink's buffer (one copy of each payload).
    package func open() throws {
        try file.append { FLVWriter().writeFileHeader(hasAudio: wantsAudio, hasVideo: wantsVideo, into: &$0) }
        metadataStart = file.bytesWritten
        metadataOffsets = try file.append { try muxer.writeStart(into: &$0) }
    }

    package func write(_ packet: MediaPacket) throws {
        try file.append { try muxer.write(packet, into: &$0) }
    }

    package func finish() throws {
        // A seekable file gets its real duration and size, as FFmpeg's flvenc does.
        if file.isSeekable {
            let duration = (Double(muxer.lastTimestamp) - Double(muxer.firstTimestamp ?? 0)) / 1000
            if let offset = metadataOffsets["duration"] {
                var bytes: [UInt8] = []
                bytes.appendFloat64(duration)
                try file.patch(at: metadataStart + Int64(offset), with: bytes)
            }
            if let offset = metadataOffsets["filesize"] {
                var bytes: [UInt8] = []
                bytes.appendFloat64(Double(file.bytesWritten))
                try file.patch(at: metadataStart + Int64(offset), with: bytes)
            }
        }
        try file.close()
    }

    package func abandon() { file.discard() }
}
