// docs/ARCHITECTURE.md §7 (segmented recordings): what a recording's segments put in the job's record, and the
// segment a killed attempt was writing, salvaged by the attempt that takes the job over before it writes any.
import Foundation
import JobDocument
import JobStore
import MediaFormats
import MediaJob

extension JobRunner {
    /// The details of an `output.segment_closed` event (`job_events.data` and the published event's `data`).
    struct SegmentEventData: Encodable, Sendable {
        var output: Int
        var path: String
        var start: String
        var durationS: Double
        var bytes: Int64
        var ranLong: Bool
        var timestampJumps: Int
        var salvaged: Bool

        enum CodingKeys: String, CodingKey {
            case output, path, start, bytes, salvaged
            case durationS = "duration_s"
            case ranLong = "ran_long"
            case timestampJumps = "timestamp_jumps"
        }
    }

    /// Records one report of a segmented output (on the runner's progress queue, in the order the output made them);
    /// a closed segment's event is published through `onTransition`.
    func recordSegment(_ report: SegmentReport, for spec: JobSpec) throws(JobStoreError) {
        switch report {
        case let .opened(output, path, start):
            try store.openSegment(jobID: spec.id, index: output, path: path, start: Date(timeIntervalSince1970: start))
        case let .closed(segment):
            onTransition(try closeSegment(spec, output: segment.output, path: segment.path, start: segment.start,
                                          duration: segment.duration, bytes: segment.bytes, ranLong: segment.ranLong,
                                          jumps: segment.timestampJumps, salvagedCut: nil))
        case let .removed(_, path):
            try store.removeSegment(jobID: spec.id, path: path)
        }
    }

    private func closeSegment(_ spec: JobSpec, output: Int, path: String, start: Double, duration: Double, bytes: Int64,
                              ranLong: Bool, jumps: Int, salvagedCut: Int64?) throws(JobStoreError) -> CommittedTransition {
        let startDate = Date(timeIntervalSince1970: start)
        var message = "output \(output): segment \(path) closed: \(String(format: "%.3f", duration)) s from \(JobsFormatting.iso(startDate)), \(bytes) bytes"
        if ranLong { message += "; ran long: no keyframe for a whole segment_s past its boundary (a GOP longer than segment_s)" }
        if jumps > 0 { message += "; \(jumps) timestamp jump\(jumps == 1 ? "" : "s") (the cut instants were anchored again)" }
        if let salvagedCut { message += "; salvaged after the attempt writing it was killed (\(salvagedCut) bytes of an incomplete end cut off)" }
        let data = SegmentEventData(output: output, path: path, start: JobsFormatting.iso(startDate), durationS: duration, bytes: bytes,
                                    ranLong: ranLong, timestampJumps: jumps, salvaged: salvagedCut != nil)
        return try store.closeSegment(jobID: spec.id, index: output, path: path, start: startDate, duration: duration, bytes: bytes,
                                      message: message, data: data)
    }

    /// The segments an earlier attempt left open (it was killed while writing them): each `.part` is cut after its last
    /// whole fragment or packet, synced, renamed and recorded, or removed when nothing of it plays. Then every
    /// recording learns the segments already on disk, which its `retain` counts. Only for the lease holder.
    func salvageSegments(_ spec: JobSpec, plan: inout JobPlan, owner: PartOwner) throws(JobStoreError) {
        guard plan.options.outputs.contains(where: { $0.segments != nil }) else { return }
        let root = plan.options.fileRoots?.output
        // The open segments this worker recorded, and those whose parts are on disk without a record here (an attempt
        // killed on another worker kept its record in its own database).
        var open = try store.segments(jobID: spec.id).filter { $0.closedAt == nil }
            .map { (index: $0.index, path: $0.path, start: Optional($0.startAt.timeIntervalSince1970)) }
        let now = Date().timeIntervalSince1970
        for (index, output) in plan.options.outputs.enumerated() {
            guard let settings = output.segments else { continue }
            for path in PartSalvage.segmentParts(of: settings, root: root, owner: owner, now: now) where !open.contains(where: { $0.path == path }) {
                open.append((index, path, nil))
            }
        }
        for row in open {
            let format = spec.outputs.indices.contains(row.index) ? spec.outputs[row.index].format : nil
            let container: PartSalvage.Container? = format == .mp4 ? .mp4 : format == .mpegts ? .mpegts : nil
            var salvaged: PartSalvage.Salvaged?
            if let container {
                do {
                    salvaged = try PartSalvage.salvage(path: row.path, root: root, owner: owner, container: container)
                } catch {
                    try store.recordEvent(id: spec.id, kind: .partsRemoved, message: "cannot salvage segment \(row.path): \(error)")
                }
            }
            guard let salvaged else {
                // Nothing playable (or a format without a salvage scan): the part goes, as any other leftover.
                _ = PartSweep.removeParts(of: [row.path], root: root, owner: owner)
                try store.forgetSegment(jobID: spec.id, path: row.path)
                continue
            }
            let settings = plan.options.outputs.indices.contains(row.index) ? plan.options.outputs[row.index].segments : nil
            let start = row.start ?? settings?.start(ofSegmentAt: row.path, endingBy: salvaged.lastWritten) ?? salvaged.lastWritten
            onTransition(try closeSegment(spec, output: row.index, path: row.path, start: start,
                                          duration: max(0, salvaged.lastWritten - start), bytes: salvaged.bytes, ranLong: false,
                                          jumps: 0, salvagedCut: salvaged.cutBytes))
        }
        let rows = try store.segments(jobID: spec.id)
        for index in plan.options.outputs.indices where plan.options.outputs[index].segments != nil {
            plan.options.outputs[index].segments?.earlier = rows
                .filter { $0.index == index && $0.closedAt != nil && $0.removedAt == nil }
                .map { RecordedSegment(path: $0.path, bytes: $0.bytes ?? 0) }
        }
    }
}
