// The fallback slate (docs/ARCHITECTURE.md §4): events show when a job is on slate, for how long and how many times.
import JobStore
import MediaEngine
import MediaJob

extension EventKind {
    /// The input went quiet for `fallback.after_s` and the outputs went on slate.
    public static let slateStarted: EventKind = "job.slate_started"
    /// The input came back and the outputs left the slate at its keyframe.
    public static let slateEnded: EventKind = "job.slate_ended"
}

/// Turns an attempt's progress snapshots into slate events: one when the outputs go on slate, one when they come
/// back, each saying how many times and how long in all. Pure; the runner records what it returns.
struct SlateEventTracker {
    private var switches = 0
    private var onSlate = false
    private var lastSeconds = 0.0
    private var since = 0.0

    mutating func events(for slate: SlateProgress?) -> [(kind: EventKind, message: String)] {
        guard let slate else { return [] }
        var events: [(EventKind, String)] = []
        // A snapshot may skip a short slate entirely (on and off between two): both are said.
        if slate.switches > switches {
            events.append((.slateStarted, "the input sent nothing: outputs on slate (time \(slate.switches))"))
            since = lastSeconds
            onSlate = true
            if !slate.onSlate {
                events.append((.slateEnded, SlateEventTracker.back(slate, stretch: slate.seconds - since)))
                onSlate = false
            }
        } else if onSlate, !slate.onSlate {
            events.append((.slateEnded, SlateEventTracker.back(slate, stretch: slate.seconds - since)))
            onSlate = false
        }
        switches = slate.switches
        lastSeconds = slate.seconds
        return events
    }

    static func back(_ slate: SlateProgress, stretch: Double) -> String {
        "the input is back after \(seconds(stretch)) s of slate (\(slate.switches) time\(slate.switches == 1 ? "" : "s") on slate, \(seconds(slate.seconds)) s in all)"
    }

    static func seconds(_ value: Double) -> String { String(format: "%.1f", max(value, 0)) }
}
