// docs/ARCHITECTURE.md §7 (segmented recordings): the one mapping from a job's media time to the wall clock that all
// of its segmented recordings cut on.
import NIOConcurrencyHelpers

/// The wall clock a job's segmented recordings share. Each recording runs on its own output thread and reads the
/// clock when a packet reaches it, a few milliseconds apart from the others; were each to anchor its media time on its
/// own reading, a keyframe a few milliseconds from a grid instant would fall before it for one recording and after it
/// for another, and an `.mp4` and a `.ts` of one job would be cut a whole segment apart. So the first recording to
/// need an anchor sets it and the others take it: the instant the job's recordings opened (naming their first
/// segments), and for each stretch of the timeline between jumps, the wall time of one of its packets.
public final class RecordingClock: Sendable {
    /// A media time (microseconds on the job's timeline) and the wall time it stands for (Unix seconds).
    public struct Anchor: Sendable, Equatable {
        public var wall: Double
        public var dts: Int64

        public init(wall: Double, dts: Int64) {
            self.wall = wall
            self.dts = dts
        }

        /// The wall time `dts` stands for.
        public func wallTime(dts other: Int64) -> Double {
            wall + Double(other.subtractingSaturating(dts)) / 1e6
        }
    }

    private struct State {
        var openedAt: Double?
        /// By stretch: the number of timestamp jumps before it.
        var anchors: [Int: Anchor] = [:]
    }

    private let state = NIOLockedValueBox(State())
    /// Stretches before the newest whose anchors are kept.
    static let stretchesKept = 16

    public init() {}

    /// The instant the job's recordings opened: `now` for the first to ask, that first one's after.
    public func openedAt(_ now: Double) -> Double {
        state.withLockedValue { state in
            if let openedAt = state.openedAt { return openedAt }
            state.openedAt = now
            return now
        }
    }

    /// The anchor of stretch `stretch`: `proposed` when no recording anchored it yet.
    public func anchor(stretch: Int, proposed: Anchor) -> Anchor {
        state.withLockedValue { state in
            if let anchor = state.anchors[stretch] { return anchor }
            state.anchors[stretch] = proposed
            // An input whose timestamps jump on every packet must not grow this: recordings are never more than a
            // few stretches apart.
            state.anchors = state.anchors.filter { $0.key > stretch - RecordingClock.stretchesKept }
            return proposed
        }
    }

    /// The anchor of stretch `stretch` after a live recording found `seen` drifted from the wall clock: `replacement`
    /// when `seen` is still the anchor, else the one another recording already put in its place.
    public func reanchor(stretch: Int, seen: Anchor, replacement: Anchor) -> Anchor {
        state.withLockedValue { state in
            if let anchor = state.anchors[stretch], anchor != seen { return anchor }
            state.anchors[stretch] = replacement
            return replacement
        }
    }

    /// The anchor of stretch `stretch` as it stands, nil before one was set.
    public func current(stretch: Int) -> Anchor? {
        state.withLockedValue { $0.anchors[stretch] }
    }
}
