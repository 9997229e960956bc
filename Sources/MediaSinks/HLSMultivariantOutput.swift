import Foundation
import MediaFormats
import MediaJob
import NIOConcurrencyHelpers

/// A job's multivariant playlist (`hls_multivariant`, docs/JOBS.md "A ladder in HLS"). Each variant's `HLSSink`, on
/// its own output thread, says what its stream is once its init segment is written and reports every segment it
/// publishes; `HLSMultivariantSchedule` decides when the playlist is due. A live job's playlist is replaced whole
/// (`OutputFile.publishWhole`) once every variant's media playlist names a segment and again when a measured peak
/// passes what it lists, so a player never sees a variant it cannot play. The final playlist, from every segment, is
/// written to its `FileWriter` after the sinks finished and published with the job's outputs (a file input's, like
/// its VOD media playlists, appears only then). A failed job removes it. The schedule is locked: the sinks' threads
/// and then the input thread reach it.
package final class HLSMultivariantOutput: Sendable {
    package let name: String
    package let file: FileWriter
    private let settings: HLSMultivariantSettings
    private let root: String?
    private let owner: PartOwner?
    /// A file input's playlist appears with the job's success only.
    private let publishesWhileRunning: Bool
    private struct State {
        var schedule: HLSMultivariantSchedule
        /// A playlist was published while the job ran (a failure removes it).
        var publishedEarly = false
    }
    private let state: NIOLockedValueBox<State>
    /// Where a live job's playlist is also served (`/hls/JOB/NAME`), and the job.
    private let served: (registry: LivePlaylistRegistry, jobID: String)?

    /// Creates the playlist's temporary file (see `OutputFile.create`).
    /// - Parameters:
    ///   - targetDuration: the media playlists' EXT-X-TARGETDURATION, seconds (the longest of the variants').
    ///   - version: their EXT-X-VERSION, which the multivariant playlist repeats.
    ///   - live: publish it while the job runs (a live input), not only at its end.
    ///   - served: the worker's live playlists and the job, for the HTTP server (live inputs only).
    package init(settings: HLSMultivariantSettings, root: String?, owner: PartOwner?, targetDuration: Int, version: Int, live: Bool,
                 served: (registry: LivePlaylistRegistry, jobID: String)? = nil) throws {
        self.settings = settings
        self.served = live ? served : nil
        self.root = root
        self.owner = owner
        name = settings.name
        publishesWhileRunning = live
        state = NIOLockedValueBox(State(schedule: HLSMultivariantSchedule(uris: settings.variants.map(\.uri), targetDuration: targetDuration, version: version)))
        file = try FileWriter(path: settings.path, root: root, owner: owner)
    }

    /// The variant `output` is, if it is one.
    package func variant(ofOutput output: Int) -> Int? {
        settings.variants.firstIndex { $0.output == output }
    }

    /// A container's millisecond time base can pass for 1000 fps: such a rate is left out rather than listed.
    package static let plausibleFrameRates = 1.0...240.0

    /// Variant `index`'s stream, from the tracks of its init segment; `frameRate` as its configuration gives it.
    package func describe(_ index: Int, tracks: [MP4Track], frameRate: Double?) throws {
        let video = tracks.first(where: \.isVideo)
        let facts = HLSMultivariantSchedule.StreamFacts(
            codecs: tracks.map(CodecString.track), width: video?.width, height: video?.height,
            frameRate: video == nil ? nil : frameRate.flatMap { Self.plausibleFrameRates.contains($0) ? $0 : nil })
        try update { $0.describe(index, facts) }
    }

    /// Variant `index` published a segment (its media playlist already names it).
    package func record(_ index: Int, bytes: Int, duration: Double) throws {
        try update { $0.record(index, segment: .init(bytes: bytes, duration: duration)) }
    }

    /// Writes the final playlist (every segment measured) into the file and syncs it; the codec job renames it with
    /// the outputs. Throws when a variant wrote no segment: a multivariant playlist must not list it.
    package func finish() throws {
        let playlist = state.withLockedValue { $0.schedule.playlist }
        guard let playlist else {
            throw OutputError.unsupported(output: name, reason: "a variant wrote no segment, so no multivariant playlist can list it")
        }
        retire()
        try file.write(Array(playlist.render().utf8))
        try file.close()
        try file.sync()
    }

    /// The job's end: the HTTP server no longer serves the playlist (nor, by then, its variants).
    private func retire() {
        if let served { served.registry.retireMultivariant(jobID: served.jobID) }
    }

    /// `playlist` as the HTTP server serves it: each variant at `OUTPUT/PLAYLIST`, where `/hls/JOB/OUTPUT/PLAYLIST` is
    /// its live media playlist (the variant's URI on disk names its folder, which the server's URLs do not).
    private func servedText(_ playlist: HLSMultivariantPlaylist) -> String {
        var served = playlist
        for index in served.variants.indices {
            guard let variant = settings.variants.first(where: { $0.uri == served.variants[index].uri }) else { continue }
            served.variants[index].uri = "\(variant.output)/" + PathText.lastComponent(variant.uri)
        }
        return served.render()
    }

    /// Removes the temporary file and a playlist published while the job ran.
    package func discard() {
        retire()
        file.discard()
        if state.withLockedValue({ $0.publishedEarly }) { try? OutputFile.removePublished(path: settings.path, root: root) }
    }

    /// Applies an event to the schedule and publishes the playlist it makes due, under the lock, so that playlists
    /// replace each other in the order they were made.
    private func update(_ event: (inout HLSMultivariantSchedule) -> HLSMultivariantPlaylist?) throws {
        try state.withLockedValue { state in
            guard let playlist = event(&state.schedule), publishesWhileRunning else { return }
            try OutputFile.publishWhole(Array(playlist.render().utf8), path: settings.path, root: root, owner: owner)
            state.publishedEarly = true
            if let served {
                served.registry.publishMultivariant(servedText(playlist), name: PathText.lastComponent(settings.path), jobID: served.jobID)
            }
        }
    }
}
