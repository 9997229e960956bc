import Foundation
import MediaFormats
import MediaJob

/// An HLS output (`.m3u8`): fragmented MP4 segments of `segment_s`, each cut at a keyframe and starting with `styp`,
/// and the init segment, next to the playlist and named after it (`index-init.mp4`, `index-00000.m4s`). Each is
/// written whole and durable before a playlist names it. A live input's playlist is replaced after every segment (a
/// sliding window of `window` segments, or all of them); a file input's is written once, at the end (VOD). The final
/// playlist, with EXT-X-ENDLIST, is the output's file: published with the job's success. A failed job removes what
/// the output wrote.
final class HLSSink: PacketSink {
    let file: FileWriter
    let wantsVideo: Bool
    let wantsAudio: Bool
    var bytesWritten: Int64 { file.bytesWritten + segmentBytes }
    var skippedBeforeConfiguration: Int { stream.skippedBeforeConfiguration }
    private var stream: FragmentedMP4Stream
    private var window: HLSSlidingWindow
    private let settings: HLSSettings
    private let name: String
    private let folder: String
    private let stem: String
    private let root: String?
    private let owner: PartOwner?
    private var sequence = 0
    private var segmentBytes: Int64 = 0
    /// Segments and the init segment published so far (removed again when the job fails).
    private var published: [String] = []
    /// A live playlist was published under the output's name before its end.
    private var publishedPlaylist = false

    init(file: FileWriter, name: String, root: String?, owner: PartOwner?, settings: HLSSettings,
         video: VideoConfiguration?, audio: AudioConfiguration?) throws {
        self.file = file
        self.name = name
        self.settings = settings
        self.root = root
        self.owner = owner
        folder = PathText.parent(file.path)
        let last = PathText.lastComponent(file.path)
        stem = last.hasSuffix(".m3u8") ? String(last.dropLast(".m3u8".count)) : last
        stream = try FragmentedMP4Stream(name: name, video: video, audio: audio,
                                         fragmentMilliseconds: Int64((settings.segmentSeconds * 1000).rounded()), writesSegmentType: true)
        let mode: HLSSlidingWindow.Mode = settings.isVOD ? .vod : settings.window > 0 ? .live(window: settings.window) : .event
        window = try HLSSlidingWindow(configuration: HLSSlidingWindow.Configuration(
            mode: mode, targetDuration: Int(settings.segmentSeconds.rounded(.up)), mapURI: stem + "-init.mp4"))
        wantsVideo = video != nil
        wantsAudio = audio != nil
    }

    func open() throws {
        if let initSegment = try stream.initSegment() { try publish(initSegment, as: stem + "-init.mp4") }
    }

    func write(_ packet: MediaPacket) throws {
        let (initSegment, fragment) = try stream.append(packet)
        if let initSegment { try publish(initSegment, as: stem + "-init.mp4") }
        if let fragment { try addSegment(fragment) }
    }

    func finish() throws {
        if let fragment = try stream.finish() { try addSegment(fragment) }
        let update = window.finish()
        // Segments that left a live window wait for clients still reading an older playlist; at the end the last
        // playlist is all that is served, so they go now.
        try remove(update.deletable + window.heldURIs)
        try file.write(Array(update.playlist.render().utf8))
        try file.close()
    }

    func abandon() {
        file.discard()
        // What a failed job wrote must not look like a recording: its segments, its init segment, its playlist.
        var leftovers = published
        if publishedPlaylist { leftovers.append(PathText.lastComponent(file.path)) }
        for uri in leftovers { try? OutputFile.removePublished(path: folder + "/" + uri, root: root) }
        published = []
    }

    private func addSegment(_ fragment: FragmentedMP4Stream.Fragment) throws {
        let uri = stem + "-" + String(format: "%05d", sequence) + ".m4s"
        sequence += 1
        try publish(fragment.bytes, as: uri)
        segmentBytes += Int64(fragment.bytes.count)
        let update = try window.appendSegment(HLSMediaSegment(duration: fragment.duration, uri: uri))
        guard !settings.isVOD else { return }
        // The playlist names the segment only once the segment is on disk, and is replaced whole.
        try OutputFile.publishWhole(Array(update.playlist.render().utf8), path: file.path, root: root, owner: owner)
        publishedPlaylist = true
        try remove(update.deletable)
    }

    private func publish(_ bytes: [UInt8], as uri: String) throws {
        try OutputFile.publishWhole(bytes, path: folder + "/" + uri, root: root, owner: owner)
        published.append(uri)
    }

    private func remove(_ uris: [String]) throws {
        for uri in uris {
            try OutputFile.removePublished(path: folder + "/" + uri, root: root)
            published.removeAll { $0 == uri }
        }
    }
}
