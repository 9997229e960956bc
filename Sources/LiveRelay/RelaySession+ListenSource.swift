// A listen job's source: the publisher the ingest handler routes to the job (its calls hop onto the job's loop), and
// what the input's activity says when the job ends.
import MediaJob
import RTMP
import NIOCore

extension RelaySession {
    /// The publisher a listen job has now: its route in the ingest listener, its connection and the token naming it.
    struct ListenSource {
        var route: IngestRoute?
        var channel: (any Channel)?
        var token = 0
    }

    /// When the input last sent media, whether it ever did, how its last connection ended, and the publishers
    /// refused on its port (a listen job that never got its publisher fails naming the last of them).
    struct InputActivity {
        var lastData: UInt64
        var everData = false
        var lastEndClean = false
        var refusals: [PublisherRefusal] = []
        /// Connections the input had (pulls opened, publishers attached): reconnects are one less.
        var connections = 0
        /// What the input's messages said of their codecs, and what of them could not be read.
        var codecs = InputCodecs()
    }

    /// A publisher was routed here and accepted; `token` names its connection in the calls that follow.
    func publisherAttached(_ token: Int, channel: any Channel) {
        source.publisher.token = token
        source.publisher.channel = channel
        input.connections += 1
        timeline.beginSegment()
        if end.begun { channel.close(promise: nil) }
    }

    /// Media from the publisher `token`, one read burst.
    func publisherMedia(_ token: Int, _ messages: [Message], receivedAt: UInt64, bytes: Int) {
        guard token == source.publisher.token else { return }
        deliver(messages, receivedAt: receivedAt, bytes: bytes)
    }

    /// The publisher `token` unpublished or disconnected.
    func publisherDetached(_ token: Int, clean: Bool) {
        guard token == source.publisher.token else { return }
        source.publisher.token = 0
        source.publisher.channel = nil
        input.lastEndClean = clean
    }

    /// The listener could not be opened, or another job holds the same application and key.
    func failToListen(_ reason: String) {
        fail(.liveInput(name: options.inputName, reason: reason))
    }

    /// Ends the job with `error` (outputs closed first).
    func fail(_ error: MediaJobError) {
        finish(.failure(error))
    }

    /// A listening source's route; when its port refused the job, the job ends before it began (no outputs opened).
    func registered<Route>(_ registration: Result<Route, MediaJobError>) -> Route? {
        switch registration {
        case let .success(route):
            return route
        case let .failure(error):
            begin(outputs: [])
            fail(error)
            return nil
        }
    }

    /// A publisher asked for this job's port but another application or key.
    func recordRefusal(_ refusal: PublisherRefusal) {
        input.refusals.append(refusal)
        if input.refusals.count > 16 { input.refusals.removeFirst() }
    }
}
