import Foundation
import MediaFormats
import MediaJob

/// An HLS output (`.m3u8`): fragmented MP4 segments of `segment_s`, each cut at a keyframe and starting with `styp`,
/// and the init segment, next to the playlist and named after it (`index-init.mp4`, `index-00000.m4s`). Each is
/// written whole before a playlist names it. A live input's playlist is replaced after every segment (a sliding window
/// of `window` segments, or all of them); a file input's is written once, at the end (VOD). The final playlist, with
/// EXT-X-ENDLIST, is the output's file: published with the job's success. A failed job removes what the output wrote.
///
/// What is synced to disk: what outlives the job. A sliding window's segments, every part and every live playlist
/// are renamed into place unsynced (`OutputFile.publishTransient`): they are replaced or removed within seconds and a
/// crash leaves them worthless, while four fsyncs per segment per output (segment, playlist, a folder each) made a
/// hundred live outputs wait on the disk. The window's last segments are synced at the end, before the final
/// playlist names them. The init segment, and an event playlist's segments (all kept: a recording), are synced as
/// they are published.
///
/// With `part_s` (Low-Latency HLS, live inputs) each segment is also published as it is written, part by part
/// (`index-00012.3.m4s`, one fMP4 fragment each, `HLSPartBoundaryPolicy`), and the playlist is replaced after every
/// part. Every playlist written is also published to the job's `LivePlaylistRegistry`, which the worker's HTTP
/// server serves with blocking reload.
///
/// A variant of the job's multivariant playlist tells it what its stream is once its init segment is written, and
/// every segment once its own playlist names it (`HLSMultivariantOutput`).
package final class HLSSink: PacketSink {
    package let file: FileWriter
    package let wantsVideo: Bool
    package let wantsAudio: Bool
    package var bytesWritten: Int64 { file.bytesWritten + segmentBytes }
    package var skippedBeforeConfiguration: Int { stream.skippedBeforeConfiguration }
    private var stream: FragmentedMP4Stream
    private var window: HLSSlidingWindow
    private let settings: HLSSettings
    private let name: String
    private let folder: String
    private let stem: String
    private let root: String?
    private let owner: PartOwner?
    private let live: (registry: LivePlaylistRegistry, key: LivePlaylistKey)?
    private let variant: (playlist: HLSMultivariantOutput, index: Int)?
    private let frameRate: Double?
    private var sequence = 0
    private var segmentBytes: Int64 = 0
    /// The segment being written, fragment by fragment, into its temporary file (renamed into place once whole), with
    /// its bytes and duration so far and, for Low-Latency HLS, its parts.
    private var openSegment: OutputFile?
    private var openBytes = 0
    private var openParts: [HLSPartialSegment] = []
    private var openDuration = 0.0
    /// Segments and the init segment published so far (removed again when the job fails).
    private var published: [String] = []
    /// A live playlist was published under the output's name before its end.
    private var publishedPlaylist = false
    /// Segments are synced as they are published: VOD and event playlists keep them all (a sliding window does not).
    private let durableSegments: Bool

    /// - Parameters:
    ///   - live: where to publish each playlist for the HTTP server (live inputs only), and under which key.
    ///   - variant: the multivariant playlist listing this output, and its index there.
    package init(file: FileWriter, name: String, root: String?, owner: PartOwner?, settings: HLSSettings,
         video: VideoConfiguration?, audio: AudioConfiguration?,
         live: (registry: LivePlaylistRegistry, key: LivePlaylistKey)? = nil,
         variant: (playlist: HLSMultivariantOutput, index: Int)? = nil) throws {
        self.file = file
        self.variant = variant
        frameRate = video?.frameRate
        self.name = name
        self.settings = settings
        self.root = root
        self.owner = owner
        self.live = settings.isVOD ? nil : live
        durableSegments = settings.isVOD || settings.window == 0
        folder = PathText.parent(file.path)
        let last = PathText.lastComponent(file.path)
        stem = last.hasSuffix(".m3u8") ? String(last.dropLast(".m3u8".count)) : last
        let segmentMilliseconds = Int64((settings.segmentSeconds * 1000).rounded())
        var partCutting: FragmentedMP4Stream.PartCutting?
        var partTarget: Double?
        if let partSeconds = settings.partSeconds, !settings.isVOD {
            let parts = HLSPartBoundaryPolicy.partsPerSegment(segmentSeconds: settings.segmentSeconds, partSeconds: partSeconds)
            partCutting = .init(segmentMilliseconds: segmentMilliseconds, partsPerSegment: parts)
            // Segments hold whole parts: the target is the segment divided by their number, rounded up to the
            // millisecond of the input's timestamps (0.334 for 0.33 in 1 s), which is what the cutting holds to.
            partTarget = Double(HLSPartBoundaryPolicy.partTargetMilliseconds(segmentMilliseconds: segmentMilliseconds,
                                                                             partsPerSegment: parts)) / 1000
        } else if !settings.isVOD {
            // A live segment is written as it comes, in fragments of about `chunkSeconds`, so an output holds that much
            // media in memory rather than a whole segment (a hundred live outputs: tens of MiB less).
            let chunks = HLSPartBoundaryPolicy.partsPerSegment(segmentSeconds: settings.segmentSeconds, partSeconds: HLSSink.chunkSeconds)
            partCutting = .init(segmentMilliseconds: segmentMilliseconds, partsPerSegment: chunks)
        }
        stream = try FragmentedMP4Stream(name: name, video: video, audio: audio, fragmentMilliseconds: segmentMilliseconds,
                                         writesSegmentType: true, partCutting: partCutting)
        let mode: HLSSlidingWindow.Mode = settings.isVOD ? .vod : settings.window > 0 ? .live(window: settings.window) : .event
        window = try HLSSlidingWindow(configuration: HLSSlidingWindow.Configuration(
            mode: mode, targetDuration: Int(settings.segmentSeconds.rounded(.up)), partTarget: partTarget,
            mapURI: stem + "-init.mp4", offersDeltaUpdates: partTarget != nil))
        wantsVideo = video != nil
        wantsAudio = audio != nil
    }

    package func open() throws {
        if let initSegment = try stream.initSegment() { try publishInit(initSegment) }
    }

    package func write(_ packet: MediaPacket) throws {
        let (initSegment, fragments) = try stream.append(packet)
        if let initSegment { try publishInit(initSegment) }
        for fragment in fragments { try add(fragment) }
    }

    /// The init segment, then the stream's facts to the multivariant playlist: its tracks are what was written.
    private func publishInit(_ bytes: [UInt8]) throws {
        try publish(bytes, as: stem + "-init.mp4")
        if let variant { try variant.playlist.describe(variant.index, tracks: stream.tracks, frameRate: frameRate) }
    }

    package func finish() throws {
        let (initSegment, fragments) = try stream.releaseHeld()
        if let initSegment { try publishInit(initSegment) }
        for fragment in fragments { try add(fragment) }
        if var fragment = try stream.finish() {
            fragment.endsSegment = true
            try add(fragment)
        }
        var update = window.finish()
        // Segments that left a live window wait for clients still reading an older playlist; at the end the last
        // playlist is all that is served, so they go now, and so do the parts: the recording is its segments.
        var leftovers = update.deletable + window.heldURIs
        for index in update.playlist.segments.indices {
            leftovers += update.playlist.segments[index].parts.map(\.uri)
            update.playlist.segments[index].parts = []
        }
        try remove(leftovers)
        if !durableSegments {
            try OutputFile.syncPublished(paths: update.playlist.segments.map { folder + "/" + $0.uri }, root: root)
        }
        try file.write(Array(update.playlist.render().utf8))
        try file.close()
        if let live {
            live.registry.publish(state(update.playlist), for: live.key)
            live.registry.retire(live.key)
        }
    }

    package func abandon() {
        if let live { live.registry.retire(live.key) }
        file.discard()
        openSegment?.discard()
        openSegment = nil
        // What a failed job wrote must not look like a recording: its segments, its init segment, its playlist.
        var leftovers = published
        if publishedPlaylist { leftovers.append(PathText.lastComponent(file.path)) }
        for uri in leftovers { try? OutputFile.removePublished(path: folder + "/" + uri, root: root) }
        published = []
    }

    /// Seconds of media a live segment without Low-Latency parts is written in (each a `moof` + `mdat`). What an
    /// output holds until its chunk is cut: at 0.5 s, a hundred 3 Mb/s outputs held 41–44 MiB of anonymous memory in
    /// the worker; at 0.25 s, 32–38 (docs/BENCHMARKS.md, HLS density), for ~150 bytes of boxes more per chunk.
    static let chunkSeconds = 0.25

    /// A fragment: appended to the open segment's file (and, with parts, published as a part first); the segment is
    /// published and listed once its last fragment is in.
    private func add(_ fragment: FragmentedMP4Stream.Fragment) throws {
        let lowLatency = settings.partSeconds != nil && !settings.isVOD
        if lowLatency {
            let uri = partURI(sequence, openParts.count)
            try publish(fragment.bytes, as: uri, durable: false)
            // A part is over the target only when one sample is (a gap in the input's timestamps, or the last sample's
            // guessed duration): it is listed at the target rather than fail a live job; the segment keeps the real sum.
            let listed = min(fragment.duration, window.configuration.partTarget ?? fragment.duration)
            openParts.append(HLSPartialSegment(duration: listed, uri: uri, independent: fragment.independent))
        }
        let segment = try openSegment ?? OutputFile.create(path: folder + "/" + segmentURI(sequence), root: root, owner: owner)
        openSegment = segment
        do throws(FileAccessError) {
            try fragment.bytes.withUnsafeBufferPointer { (buffer) throws(FileAccessError) in try segment.write(UnsafeRawBufferPointer(buffer)) }
        } catch {
            segment.discard()
            openSegment = nil
            throw error
        }
        openBytes += fragment.bytes.count
        openDuration += fragment.duration
        guard fragment.endsSegment else {
            guard lowLatency else { return }
            let update = try window.appendPart(openParts[openParts.count - 1], nextPartURI: partURI(sequence, openParts.count))
            return try publishPlaylist(update)
        }
        try closeSegment()
    }

    /// The open segment is whole: renamed into place (synced first when it outlives the window), then listed.
    private func closeSegment() throws {
        guard let segment = openSegment else { return }
        let (bytes, duration, parts) = (openBytes, openDuration, openParts)
        (openSegment, openBytes, openDuration, openParts) = (nil, 0, 0, [])
        do throws(FileAccessError) {
            try segment.closeForWriting()
            if durableSegments { try segment.publish() } else { try segment.publishTransient() }
        } catch {
            segment.discard()
            throw error
        }
        let uri = segmentURI(sequence)
        published.append(uri)
        sequence += 1
        segmentBytes += Int64(bytes)
        let hint = settings.partSeconds == nil ? nil : partURI(sequence, 0)
        let update = try window.appendSegment(HLSMediaSegment(duration: duration, uri: uri, parts: parts), nextPartURI: hint)
        if !settings.isVOD { try publishPlaylist(update) }
        // Only once this output's playlist names the segment may the multivariant playlist list the variant.
        if let variant { try variant.playlist.record(variant.index, bytes: bytes, duration: duration) }
    }

    private func segmentURI(_ segment: Int) -> String {
        stem + "-" + String(format: "%05d", segment) + ".m4s"
    }

    /// The playlist names a segment or part only once it is in place, and is replaced whole (unsynced: the final
    /// playlist is the output's file, committed with the job).
    private func publishPlaylist(_ update: HLSSlidingWindow.Update) throws {
        try OutputFile.publishWhole(Array(update.playlist.render().utf8), path: file.path, root: root, owner: owner, durable: false)
        publishedPlaylist = true
        if let live { live.registry.publish(state(update.playlist), for: live.key) }
        try remove(update.deletable)
    }

    private func state(_ playlist: HLSMediaPlaylist) -> LivePlaylistState {
        LivePlaylistState(playlist: playlist, folder: folder, playlistName: PathText.lastComponent(file.path))
    }

    private func partURI(_ segment: Int, _ part: Int) -> String {
        stem + "-" + String(format: "%05d", segment) + "." + String(part) + ".m4s"
    }

    private func publish(_ bytes: [UInt8], as uri: String, durable: Bool = true) throws {
        try OutputFile.publishWhole(bytes, path: folder + "/" + uri, root: root, owner: owner, durable: durable)
        published.append(uri)
    }

    private func remove(_ uris: [String]) throws {
        guard !uris.isEmpty else { return }
        let gone = Set(uris)
        for uri in uris { try OutputFile.removePublished(path: folder + "/" + uri, root: root) }
        published.removeAll { gone.contains($0) }
    }
}
