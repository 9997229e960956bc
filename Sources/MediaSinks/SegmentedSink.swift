import Foundation
import MediaFormats
import MediaJob

/// A recording cut into segments on the wall clock (`SegmentSchedule`; docs/ARCHITECTURE.md §7): each segment is a
/// whole file of the output's format, written by that format's own sink (`MP4Sink`: its own init segment; `TSSink`:
/// PAT and PMT first; `FLVSink`: its header) into a `.part`, and at the cut finished, synced, renamed into place and
/// reported. Times restart at zero in every segment. The last segment is published with the job's end, as any file
/// output is. Runs on its output's thread (`FileOutput`), like every sink; `report` is called there, in order.
package final class SegmentedSink: PacketSink {
    /// Makes the format's sink on a segment's file.
    package typealias MakeSink = (FileWriter) throws -> any PacketSink

    package let wantsVideo: Bool
    package let wantsAudio: Bool
    package var file: FileWriter { current.file }
    package var bytesWritten: Int64 { closedBytes + current.bytesWritten }
    package var skippedBeforeConfiguration: Int { current.skippedBeforeConfiguration }

    /// Seconds between writes of what is buffered: a killed worker leaves at most this much (and the fragment being
    /// built) out of the `.part` a take-over salvages.
    package static let flushInterval = 1.0
    /// Names tried after a taken one (`-1`, `-2`, …): a take-over's first segment shares its grid slot with the one
    /// the killed attempt left.
    package static let maxCollisions = 1000

    private let index: Int
    private let settings: SegmentSettings
    private let root: String?
    private let owner: PartOwner?
    private let report: @Sendable (SegmentReport) -> Void
    private let clock: () -> Double
    private let make: MakeSink
    private var schedule: SegmentSchedule
    private var current: any PacketSink
    /// The open segment: its path, where its timeline starts (its first packet's DTS) and its wall-clock start.
    private var currentPath: String
    private var base: Int64?
    private var wallStart: Double
    /// The leading track's last DTS and the step before it, for the last segment's duration.
    private var lastLeading: (dts: Int64, step: Int64)?
    /// The open segment was finished (its trailer written and its file closed) and waits for its publication.
    private var currentFinished = false
    /// A write to the open segment failed (a full disk, say): what it holds ends wherever the failure cut it.
    private var currentBroken = false
    private var ended = false
    /// Closed segments on disk, oldest first (earlier attempts' too, on any worker), which `retain` trims.
    private var closed: [RecordedSegment]
    private var closedBytes: Int64 = 0
    private var lastFlush: Double
    /// Each segment's `FileWriter` buffer: small for a live input, whose pending bytes are held while the job runs.
    private let bufferSize: Int

    /// Opens the first segment's `.part`, named after the wall clock now (when the job's first recording opened).
    /// - Parameter recordingClock: the anchors the job's recordings share, so that they cut at the same instants.
    package init(index: Int, settings: SegmentSettings, root: String?, owner: PartOwner?, followsWallClock: Bool,
         recordingClock: RecordingClock = RecordingClock(), report: @escaping @Sendable (SegmentReport) -> Void,
         clock: @escaping () -> Double = { Date().timeIntervalSince1970 }, make: @escaping MakeSink) throws {
        self.index = index
        self.settings = settings
        self.root = root
        self.owner = owner
        self.report = report
        self.clock = clock
        self.make = make
        let now = clock()
        closed = settings.closedSegmentsOnDisk(root: root, now: now, known: settings.earlier)
        schedule = SegmentSchedule(seconds: settings.seconds, openedAt: now, followsWallClock: followsWallClock,
                                   clock: recordingClock)
        wallStart = now
        lastFlush = now
        bufferSize = followsWallClock ? FileWriter.liveBufferSize : FileWriter.bufferSize
        (current, currentPath) = try SegmentedSink.segment(startingAt: schedule.firstStart, settings: settings, taken: closed,
                                                          root: root, owner: owner, bufferSize: bufferSize, make: make)
        wantsVideo = current.wantsVideo
        wantsAudio = current.wantsAudio
    }

    package func open() throws {
        try current.open()
        report(.opened(output: index, path: currentPath, start: wallStart))
    }

    package func write(_ packet: MediaPacket) throws {
        do {
            try place(packet)
        } catch {
            currentBroken = true
            throw error
        }
    }

    private func place(_ packet: MediaPacket) throws {
        let leading = wantsVideo ? packet.kind == .video : true
        if leading {
            let jumps = schedule.jumps
            let decision = schedule.place(dts: packet.dts, isKeyframe: packet.kind == .audio || packet.isKeyframe, now: clock())
            if case let .cut(start, ranLong) = decision, let base {
                try closeCurrent(duration: Double(packet.dts.subtractingSaturating(base)) / 1e6, ranLong: ranLong, jumps: jumps)
                try openNext(start: start)
            }
            lastLeading = (packet.dts, lastLeading.map { packet.dts.subtractingSaturating($0.dts) } ?? 0)
        }
        let segmentBase = base ?? packet.dts
        if base == nil {
            base = segmentBase
            wallStart = schedule.wallTime(dts: packet.dts) > 0 ? schedule.wallTime(dts: packet.dts) : clock()
        }
        var rebased = packet
        rebased.dts = max(0, packet.dts.subtractingSaturating(segmentBase))
        rebased.pts = max(rebased.dts, packet.pts.subtractingSaturating(segmentBase))
        try current.write(rebased)
        let now = clock()
        if now - lastFlush >= SegmentedSink.flushInterval {
            lastFlush = now
            try current.file.flush()
        }
    }

    /// Finishes the last segment; the job publishes it (synced and renamed with its other outputs).
    package func finish() throws {
        guard !ended else { return }
        ended = true
        try current.finish()
        currentFinished = true
        recordClosed(duration: openDuration, ranLong: false, jumps: schedule.jumps)
        trimToRetain()
    }

    /// A failure or a discarding cancel: closed segments stay (each is whole); the open one is closed playable when it
    /// can be, else removed.
    package func abandon() {
        if currentFinished {
            if (try? current.file.rename()) != nil { try? current.file.file.syncFolder() } else { current.abandon() }
            return
        }
        guard !ended, base != nil else {
            current.abandon()
            return
        }
        ended = true
        if currentBroken {
            keepWhatPlays()
            return
        }
        do {
            try closeCurrent(duration: openDuration, ranLong: false, jumps: schedule.jumps)
        } catch {
            current.abandon()
        }
    }

    /// The open segment after a failed write: its `.part` is cut after its last whole fragment (MP4) or packet (TS), as
    /// a take-over salvages a killed attempt's, and published under its name; with nothing whole in it, or as FLV, it
    /// is removed. Finishing it instead would publish a file cut wherever the failure cut it.
    private func keepWhatPlays() {
        let lower = currentPath.lowercased()
        let container: PartSalvage.Container? = lower.hasSuffix(".mp4") || lower.hasSuffix(".m4v") ? .mp4
            : lower.hasSuffix(".ts") || lower.hasSuffix(".m2ts") || lower.hasSuffix(".mts") ? .mpegts : nil
        guard let owner, let container else {
            current.abandon()
            return
        }
        // The write that broke the segment already failed the job; closing only releases the descriptor, which it
        // does whatever the close reports.
        _ = try? current.file.close()
        let kept: PartSalvage.Salvaged?
        do {
            kept = try PartSalvage.salvage(path: currentPath, root: root, owner: owner, container: container)
        } catch {
            current.abandon()
            return
        }
        guard let kept else { return }
        closed.append(RecordedSegment(path: currentPath, bytes: kept.bytes))
        closedBytes += kept.bytes
        // Its duration is the media handed to it (openDuration): the frames after the last whole fragment are cut.
        report(.closed(ClosedSegment(output: index, path: currentPath, start: wallStart, duration: openDuration, bytes: kept.bytes)))
    }

    // MARK: Segments

    /// Media seconds of the open segment so far: to its leading track's last packet plus the step before it.
    private var openDuration: Double {
        lastLeading.map { Double($0.dts.addingSaturating($0.step).subtractingSaturating(base ?? $0.dts)) / 1e6 } ?? 0
    }

    /// Finishes, syncs and renames the open segment, then reports it.
    private func closeCurrent(duration: Double, ranLong: Bool, jumps: Int) throws {
        try current.finish()
        try current.file.sync()
        let published = try current.file.rename()
        try published.syncFolder()
        recordClosed(duration: duration, ranLong: ranLong, jumps: jumps)
        trimToRetain()
    }

    private func recordClosed(duration: Double, ranLong: Bool, jumps: Int) {
        let bytes = current.bytesWritten
        closed.append(RecordedSegment(path: currentPath, bytes: bytes))
        closedBytes += bytes
        report(.closed(ClosedSegment(output: index, path: currentPath, start: wallStart, duration: max(0, duration), bytes: bytes,
                                     ranLong: ranLong, timestampJumps: jumps)))
    }

    private func openNext(start: Int64) throws {
        (current, currentPath) = try SegmentedSink.segment(startingAt: start, settings: settings, taken: closed, root: root,
                                                          owner: owner, bufferSize: bufferSize, make: make)
        base = nil
        currentFinished = false
        wallStart = Double(start)
        try current.open()
        report(.opened(output: index, path: currentPath, start: Double(start)))
    }

    /// The segment's sink on a new `.part`, named by its start (another name when that one is taken).
    private static func segment(startingAt start: Int64, settings: SegmentSettings, taken: [RecordedSegment], root: String?,
                                owner: PartOwner?, bufferSize: Int, make: MakeSink) throws -> (any PacketSink, String) {
        let number = start / max(1, settings.seconds)
        var path = settings.pattern.path(start: start, number: number)
        var collision = 0
        while taken.contains(where: { $0.path == path }) || OutputFile.exists(path: path, root: root), collision < maxCollisions {
            collision += 1
            path = settings.pattern.path(start: start, number: number, collision: collision)
        }
        let file = try FileWriter(path: path, root: root, owner: owner,
                                  bufferSize: bufferSize)
        do {
            return (try make(file), path)
        } catch {
            file.discard()
            throw error
        }
    }

    /// Removes the oldest closed segments beyond `retain` / `retain_bytes`; the newest always stays.
    private func trimToRetain() {
        var total = closed.reduce(Int64(0)) { $0 + $1.bytes }
        while closed.count > 1, closed.count > (settings.retainCount ?? Int.max) || total > (settings.retainBytes ?? Int64.max) {
            let oldest = closed.removeFirst()
            total -= oldest.bytes
            // A segment already gone (an operator moved it) is not an error; one that cannot be removed stays on disk.
            if (try? OutputFile.removePublished(path: oldest.path, root: root)) != nil {
                report(.removed(output: index, path: oldest.path))
            }
        }
    }
}
