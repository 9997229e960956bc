import Foundation
import MediaJob
import NIOCore
import NIOPosix
import NIOSSL
import MediaFormats
import RTMP

extension OutputProgress {
    /// Counts a message an output sent or wrote, by the head the core read: a frame is a packet, and a video frame a
    /// video frame too. Returns whether it was a frame.
    @discardableResult
    mutating func count(_ head: FLVTagHead) -> Bool {
        guard head.isFrame else { return false }
        packets += 1
        if head.role == .videoFrame { videoFrames += 1 }
        return true
    }
}


/// One network output of a live job: a publish connection, reconnected with backoff, fed by the session.
/// Touched only on the session's event loop.
final class OutputLink {
    /// Where a (re)started connection is in the stream.
    enum Position {
        /// Nothing sent since the connection became ready or since an overflow: waiting for a keyframe.
        case waitingForStart
        /// Relaying; `videoStarted` once a keyframe went out (audio may start first in a stream with no video yet).
        case running(videoStarted: Bool)
    }

    let index: Int
    let name: String
    let endpoint: RTMPEndpoint
    var handler: RTMPClientHandler?
    /// Bumped per connection: events of an abandoned connection are ignored.
    var generation = 0
    var ready = false
    var position = Position.waitingForStart
    var progress = OutputProgress()
    /// Failed connections in a row.
    var failures = 0
    var latency = LatencyHistogram()
    /// Chunks encoded since the last flush, written once per source read burst.
    var pending: ByteBuffer?
    var pendingFrames = 0
    var readyTimeout: Scheduled<Void>?
    var retry: Scheduled<Void>?
    /// When the connection's send buffer last filled up (monotonic ns), 0 while it drains.
    var unwritableSince: UInt64 = 0
    /// Enhanced RTMP codecs this connection's server was checked for (and takes); emptied per connection.
    var checkedCodecs: Set<String> = []
    /// What the relay said about this output (a codec sent to a server that announced none), in order.
    var notes: [String] = []

    init(index: Int, name: String, endpoint: RTMPEndpoint) {
        self.index = index
        self.name = name
        self.endpoint = endpoint
        progress.status = .connecting
    }
}

/// An output the session connects, and connects again after a loss: an RTMP `OutputLink` or an `SRTOutputLink`.
protocol NetworkOutputLink: AnyObject {
    /// Bumped per connection: events of an abandoned connection are ignored.
    var generation: Int { get set }
    var ready: Bool { get set }
}

extension NetworkOutputLink {
    /// A new connection: the last one's events are ignored from now on and the output waits until it is ready.
    /// Returns the new connection's generation.
    func beginConnection() -> Int {
        generation += 1
        ready = false
        return generation
    }
}

extension OutputLink: NetworkOutputLink {}
extension SRTOutputLink: NetworkOutputLink {}
