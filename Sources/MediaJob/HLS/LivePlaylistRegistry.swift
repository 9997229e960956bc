// docs/ARCHITECTURE.md "Low-Latency HLS": the live playlists of a worker's running jobs, published by their HLS sinks
// (on the codec job threads) and awaited by the HTTP server's requests (on Swift's cooperative pool). One lock guards
// the table; a request that must wait parks a continuation that the next publish resumes: no polling.
import MediaFormats
import NIOConcurrencyHelpers

/// Which live playlist: a job's output, by its index in the job's `outputs`.
public struct LivePlaylistKey: Hashable, Sendable, CustomStringConvertible {
    public var jobID: String
    public var output: Int

    public init(jobID: String, output: Int) {
        self.jobID = jobID
        self.output = output
    }

    public var description: String { "\(jobID)/\(output)" }
}

/// One published state of a live playlist: the playlist and the folder its files are in.
public struct LivePlaylistState: Sendable, Equatable {
    /// The playlist as it was last written to disk.
    public var playlist: HLSMediaPlaylist
    /// The output's folder (absolute): the playlist, its init segment, segments and parts.
    public var folder: String
    /// The playlist's file name in `folder` (`index.m3u8`).
    public var playlistName: String

    public init(playlist: HLSMediaPlaylist, folder: String, playlistName: String) {
        self.playlist = playlist
        self.folder = folder
        self.playlistName = playlistName
    }

    /// True when the playlist lists `uri` as a part, a segment or the map: its bytes are on disk.
    public func lists(_ uri: String) -> Bool {
        playlist.mapURI == uri || playlist.openSegment.parts.contains { $0.uri == uri }
            || playlist.segments.contains { $0.uri == uri || $0.parts.contains { $0.uri == uri } }
    }
}

/// The live playlists of one worker's running jobs, keyed by job and output.
public final class LivePlaylistRegistry: Sendable {
    /// The answer to a playlist request.
    public enum PlaylistAnswer: Sendable, Equatable {
        /// Serve this state, printed in this form.
        case playlist(LivePlaylistState, HLSMediaPlaylist.Form)
        /// 400: the directives ask for something the spec forbids.
        case badRequest(String)
        /// 503: what was asked for did not appear within three target durations.
        case timedOut
        /// 404: no running job has this output as a live playlist (or it ended while the request waited).
        case notFound
    }

    private struct Waiter {
        var ready: @Sendable (LivePlaylistState?) -> Bool
        var continuation: CheckedContinuation<LivePlaylistState??, Never>?
    }

    private struct Table {
        var states: [LivePlaylistKey: LivePlaylistState] = [:]
        var waiters: [LivePlaylistKey: [UInt64: Waiter]] = [:]
        /// Waiters cancelled before they parked.
        var cancelled: Set<UInt64> = []
        var nextID: UInt64 = 0
        /// Each job's multivariant playlist: its file name and its text as served (variants at `OUTPUT/NAME`).
        var multivariants: [String: (name: String, text: String)] = [:]
    }

    private let table = NIOLockedValueBox(Table())
    private let clock: any Clock<Duration>

    /// A registry whose request timeouts run on `clock` (tests inject one).
    public init(clock: any Clock<Duration> = ContinuousClock()) {
        self.clock = clock
    }

    // MARK: Sinks

    /// Publishes the state just written to disk and wakes every request it satisfies.
    public func publish(_ state: LivePlaylistState, for key: LivePlaylistKey) {
        let woken = table.withLockedValue { table in
            table.states[key] = state
            return Self.take(from: &table, key) { $0.ready(state) }
        }
        for continuation in woken { continuation.resume(returning: .some(state)) }
    }

    /// The output ended (or failed): it is no longer served, and waiting requests are answered 404.
    public func retire(_ key: LivePlaylistKey) {
        let woken = table.withLockedValue { table in
            table.states[key] = nil
            return Self.take(from: &table, key) { _ in true }
        }
        for continuation in woken { continuation.resume(returning: .some(nil)) }
    }

    /// Publishes a job's multivariant playlist as the HTTP server serves it, at `/hls/JOB/NAME`: `text` lists each
    /// variant at `OUTPUT/PLAYLIST`, which resolves against that URL to the variant's own live media playlist.
    public func publishMultivariant(_ text: String, name: String, jobID: String) {
        table.withLockedValue { $0.multivariants[jobID] = (name, text) }
    }

    /// The job ended (or failed): its multivariant playlist is no longer served.
    public func retireMultivariant(jobID: String) {
        table.withLockedValue { $0.multivariants[jobID] = nil }
    }

    /// The multivariant playlist `name` of a running job, as served; nil when it has none (yet) under that name.
    public func multivariant(jobID: String, name: String) -> String? {
        table.withLockedValue { table in table.multivariants[jobID].flatMap { $0.name == name ? $0.text : nil } }
    }

    /// The state last published for `key`; nil when none is live.
    public func current(_ key: LivePlaylistKey) -> LivePlaylistState? { table.withLockedValue { $0.states[key] } }

    /// Requests parked now (for tests and the metrics of a busy origin).
    public var waitingCount: Int { table.withLockedValue { $0.waiters.values.reduce(0) { $0 + $1.count } } }

    // MARK: Requests

    /// RFC 8216bis §6.2.5: the playlist for a request with `directives`, waiting (blocking reload) until it holds
    /// what they ask for, up to three target durations.
    public func playlist(for key: LivePlaylistKey, directives: HLSDeliveryDirectives) async -> PlaylistAnswer {
        guard let state = current(key) else { return .notFound }
        switch HLSPlaylistResponse.deciding(directives, for: state.playlist) {
        case let .respond(form): return .playlist(state, form)
        case let .badRequest(reason): return .badRequest(reason)
        case let .wait(_, timeout):
            let outcome = await next(key, timeout: .milliseconds(Int64(timeout * 1000))) { state in
                guard let state else { return true }
                if case .wait = HLSPlaylistResponse.deciding(directives, for: state.playlist) { return false }
                return true
            }
            switch outcome {
            case nil: return .timedOut
            case .some(nil): return .notFound
            case let .some(state?):
                switch HLSPlaylistResponse.deciding(directives, for: state.playlist) {
                case let .respond(form): return .playlist(state, form)
                case let .badRequest(reason): return .badRequest(reason)
                case .wait: return .timedOut
                }
            }
        }
    }

    /// RFC 8216bis §6.2.6: a request for the part the playlist hints as next waits until that part is published.
    /// Returns the state to serve `name` from, at once when `name` is not the hinted part; nil when the output is not
    /// live (any more) or the part did not come within three target durations.
    public func resource(named name: String, for key: LivePlaylistKey) async -> LivePlaylistState? {
        guard let state = current(key) else { return nil }
        guard state.playlist.preloadHint?.uri == name, !state.lists(name) else { return state }
        let timeout = HLSPlaylistResponse.maxWaitTargetDurations * Double(state.playlist.targetDuration)
        let outcome = await next(key, timeout: .milliseconds(Int64(timeout * 1000))) { state in
            guard let state else { return true }
            return state.lists(name) || state.playlist.preloadHint?.uri != name
        }
        guard case let .some(state?) = outcome, state.lists(name) else { return nil }
        return state
    }

    // MARK: Waiting

    /// The first state published for `key` that `ready` accepts (`.some(nil)`: the output was retired), or nil when
    /// none came within `timeout` (or the request was cancelled).
    private func next(_ key: LivePlaylistKey, timeout: Duration,
                      where ready: @escaping @Sendable (LivePlaylistState?) -> Bool) async -> LivePlaylistState?? {
        let id = table.withLockedValue { table in
            table.nextID += 1
            return table.nextID
        }
        let clock = self.clock
        // A cancel that came after the event leaves the id marked; nothing parks under it again.
        defer { table.withLockedValue { _ = $0.cancelled.remove(id) } }
        return await withTaskGroup(of: LivePlaylistState??.self) { group in
            group.addTask { await self.park(id, key, ready) }
            group.addTask {
                // The timeout is a sleep that is cancelled when the event comes first, not a poll.
                try? await clock.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// Parks until a publish satisfies `ready` or the output is retired; nil when cancelled.
    private func park(_ id: UInt64, _ key: LivePlaylistKey,
                      _ ready: @escaping @Sendable (LivePlaylistState?) -> Bool) async -> LivePlaylistState?? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<LivePlaylistState??, Never>) in
                let immediate: LivePlaylistState??? = table.withLockedValue { table in
                    if table.cancelled.remove(id) != nil { return .some(nil) }
                    let state = table.states[key]
                    // Published between the caller's decision and now, or retired meanwhile.
                    if state == nil || ready(state) { return .some(.some(state)) }
                    table.waiters[key, default: [:]][id] = Waiter(ready: ready, continuation: continuation)
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let continuation = table.withLockedValue { table in
                guard let waiter = table.waiters[key]?.removeValue(forKey: id) else {
                    table.cancelled.insert(id)
                    return nil as CheckedContinuation<LivePlaylistState??, Never>?
                }
                if table.waiters[key]?.isEmpty == true { table.waiters[key] = nil }
                return waiter.continuation
            }
            continuation?.resume(returning: nil)
        }
    }

    /// Removes and returns the continuations of `key`'s waiters that `satisfied` accepts.
    private static func take(from table: inout Table, _ key: LivePlaylistKey,
                             _ satisfied: (Waiter) -> Bool) -> [CheckedContinuation<LivePlaylistState??, Never>] {
        guard let waiters = table.waiters[key] else { return [] }
        var woken: [CheckedContinuation<LivePlaylistState??, Never>] = []
        var left: [UInt64: Waiter] = [:]
        for (id, waiter) in waiters {
            if satisfied(waiter), let continuation = waiter.continuation { woken.append(continuation) } else { left[id] = waiter }
        }
        table.waiters[key] = left.isEmpty ? nil : left
        return woken
    }
}
