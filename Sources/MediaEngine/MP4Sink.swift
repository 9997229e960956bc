import MediaFormats
import MediaJob

/// A fragmented MP4 file (`.mp4`): the init segment (`ftyp`, `moov` with `mvex`), then a `moof` + `mdat` fragment
/// about every second, cut at the first video keyframe at or after each second (any frame without video), through
/// `MP4Fragmenter`. H.264 in Annex B is made length-prefixed first; its init segment waits for its SPS and PPS.
final class MP4Sink: PacketSink {
    let file: FileWriter
    let wantsVideo: Bool
    let wantsAudio: Bool
    var bytesWritten: Int64 { file.bytesWritten }
    /// Video packets dropped because no SPS/PPS had been seen yet (an Annex B stream cut mid-GOP).
    private(set) var skippedBeforeConfiguration = 0
    private let name: String
    private let video: VideoConfiguration?
    private let audio: AudioConfiguration?
    /// Nil until every track's configuration is known (Annex B video: its first SPS and PPS).
    private var fragmenter: MP4Fragmenter?
    private var timestamps: [MP4TimestampConverter] = []
    private var videoTrack: Int?
    private var audioTrack: Int?
    private var annexBToAVCC: AnnexBToAVCCConverter?
    /// One Annex B access unit made length-prefixed (kept to reuse its storage).
    private var avccPayload: [UInt8] = []
    /// The avcC the init segment of Annex B video was written with.
    private var annexBRecord: AVCDecoderConfigurationRecord?
    /// Per track: it took a sample already.
    private var started: [Bool] = []
    /// Microseconds subtracted from every time: the first packet's DTS when it is negative, so no decode time is.
    private var origin: Int64?

    init(file: FileWriter, name: String, video: VideoConfiguration?, audio: AudioConfiguration?) throws {
        guard video != nil || audio != nil else { throw OutputError.missingStream(output: name, kind: "audio or video") }
        self.file = file
        self.name = name
        self.video = video
        self.audio = audio
        wantsVideo = video != nil
        wantsAudio = audio != nil
        if case let .annexB(extradata) = video?.bitstream { annexBToAVCC = try AnnexBToAVCCConverter(extradata: extradata) }
    }

    func open() throws { try startIfConfigured() }

    func write(_ packet: MediaPacket) throws {
        try refuseChanges(packet)
        var payload = packet.data[...]
        var isSync = packet.kind == .audio || packet.isKeyframe
        if packet.kind == .video, var converter = annexBToAVCC {
            avccPayload.removeAll(keepingCapacity: true)
            let conversion = try packet.data.withUnsafeBytes { try converter.convert($0, into: &avccPayload) }
            annexBToAVCC = converter
            payload = avccPayload[...]
            isSync = conversion.isKeyframe
            if fragmenter != nil, conversion.parameterSetsChanged, converter.record != annexBRecord { throw videoChanged }
            try startIfConfigured()
        }
        guard var fragmenter, let track = packet.kind == .video ? videoTrack : audioTrack else {
            if packet.kind == .video { skippedBeforeConfiguration += 1 }
            return
        }
        // The first video sample of a file must be one a decoder can start at.
        if packet.kind == .video, !isSync, !started[track] {
            skippedBeforeConfiguration += 1
            return
        }
        let origin = self.origin ?? min(packet.dts, 0)
        self.origin = origin
        let decodeTime = max(0, timestamps[track].decodeTime(microseconds: packet.dts.subtractingSaturating(origin)))
        let offset = timestamps[track].ticks(microseconds: packet.pts.subtractingSaturating(packet.dts))
        let sample = MP4Sample(decodeTime: decodeTime, compositionOffset: Int32(clamping: offset), isSync: isSync, payload: payload)
        let fragment = try fragmenter.append(sample, track: track)
        self.fragmenter = fragmenter
        if let fragment { try file.write(fragment) }
        started[track] = true
    }

    func finish() throws {
        guard var fragmenter else {
            throw OutputError.unsupported(output: name, reason: "no SPS and PPS arrived before the end, so no MP4 could be written")
        }
        if let fragment = try fragmenter.finish() { try file.write(fragment) }
        self.fragmenter = fragmenter
        try file.close()
    }

    func abandon() { file.discard() }

    /// Writes the init segment once every track's configuration is known.
    private func startIfConfigured() throws {
        guard fragmenter == nil else { return }
        var tracks: [MP4Track] = []
        if let video {
            let codec: MP4Track.Codec
            switch video.bitstream {
            case let .avcc(record): codec = .avc(record)
            case .annexB:
                guard let record = annexBToAVCC?.record else { return }
                annexBRecord = record
                codec = .avc(record)
            case let .hvcc(record): codec = .hevc(record)
            case let .av1(record): codec = .av1(record)
            }
            videoTrack = tracks.count
            tracks.append(try MP4Track(id: UInt32(tracks.count + 1), codec: codec))
        }
        if let audio {
            audioTrack = tracks.count
            tracks.append(try MP4Track(id: UInt32(tracks.count + 1), codec: .aac(audio.audioSpecificConfig)))
        }
        let fragmenter = try MP4Fragmenter(tracks: tracks)
        try file.write(try fragmenter.initSegment())
        timestamps = tracks.map(MP4TimestampConverter.init(track:))
        started = Array(repeating: false, count: tracks.count)
        self.fragmenter = fragmenter
    }

    private var videoChanged: OutputError {
        .unsupported(output: name, reason: "the video's configuration changed mid-stream, which one MP4 file cannot hold (write it to .ts or .flv)")
    }

    /// One file holds one configuration per track: a different one mid-stream (a new resolution, another codec) is
    /// refused by name rather than written into a file players would misread.
    private func refuseChanges(_ packet: MediaPacket) throws {
        // Annex B video's configuration is its in-band SPS and PPS, compared where they are read (`write`).
        if let changed = packet.videoConfiguration, let video, changed.bitstream != video.bitstream, annexBToAVCC == nil {
            throw videoChanged
        }
        if let changed = packet.audioConfiguration, let audio, changed.audioSpecificConfig != audio.audioSpecificConfig {
            throw OutputError.unsupported(output: name, reason: "the audio's configuration changed mid-stream, which one MP4 file cannot hold (write it to .ts or .flv)")
        }
    }
}
