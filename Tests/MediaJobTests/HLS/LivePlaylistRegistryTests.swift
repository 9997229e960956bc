import Foundation
import MediaFormats
import MediaJob
import Testing

/// The live playlist registry: requests park until a publish satisfies them (RFC 8216bis §6.2.5.2 blocking reload,
/// §6.2.6 preload hints), time out after three target durations on the injected clock, and end when the output does.
@Suite("Live playlist registry")
struct LivePlaylistRegistryTests {
    static let key = LivePlaylistKey(jobID: "cam", output: 0)

    /// A live window of 1 s segments in three parts of 1/3 s, with delta updates.
    static func window() throws -> HLSSlidingWindow {
        try HLSSlidingWindow(configuration: .init(mode: .live(window: 10), targetDuration: 1, partTarget: 1.0 / 3,
                                                  mapURI: "index-init.mp4", offersDeltaUpdates: true))
    }

    static func part(_ segment: Int, _ index: Int) -> HLSPartialSegment {
        HLSPartialSegment(duration: 1.0 / 3, uri: "index-\(segment).\(index).m4s", independent: index == 0)
    }

    /// Publishes the next part of `window` (or the segment, on every third part) and returns the state.
    static func step(_ window: inout HLSSlidingWindow, _ count: inout Int) throws -> LivePlaylistState {
        let (segment, index) = (count / 3, count % 3)
        count += 1
        let next = count % 3 == 0 ? "index-\(segment + 1).0.m4s" : "index-\(segment).\(index + 1).m4s"
        let update: HLSSlidingWindow.Update
        if index == 2 {
            let parts = window.playlist.openSegment.parts + [part(segment, index)]
            update = try window.appendSegment(HLSMediaSegment(duration: 1, uri: "index-\(segment).m4s", parts: parts), nextPartURI: next)
        } else {
            update = try window.appendPart(part(segment, index), nextPartURI: next)
        }
        return LivePlaylistState(playlist: update.playlist, folder: "/tmp/cam", playlistName: "index.m3u8")
    }

    /// A registry with `parts` parts of a live output published.
    struct Live {
        let clock = ManualClock()
        let registry: LivePlaylistRegistry
        var window: HLSSlidingWindow
        var count = 0

        init(parts: Int) throws {
            registry = LivePlaylistRegistry(clock: clock)
            window = try LivePlaylistRegistryTests.window()
            for _ in 0..<parts { try publish() }
        }

        mutating func publish() throws { registry.publish(try next(), for: LivePlaylistRegistryTests.key) }

        mutating func next() throws -> LivePlaylistState { try LivePlaylistRegistryTests.step(&window, &count) }
    }

    static func waitUntil(_ condition: @escaping () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(20)
        while !condition() {
            if ContinuousClock.now > deadline { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    @Test("a request for the next part waits, stays parked through a publish that lacks it, and returns with the publish that lists it")
    func blockingReloadWakes() async throws {
        var live = try Live(parts: 4)
        let (clock, registry) = (live.clock, live.registry)
        // Segment 0 complete, part 0 of segment 1 published; ask for part 2 of segment 1.
        let request = Task { await registry.playlist(for: Self.key, directives: .init(mediaSequenceNumber: 1, partIndex: 2)) }
        #expect(await Self.waitUntil { registry.waitingCount == 1 && clock.sleeping == 1 })
        try live.publish()
        try await Task.sleep(for: .milliseconds(50))
        #expect(registry.waitingCount == 1, "woken by a playlist without the part")
        let listing = try live.next()
        registry.publish(listing, for: Self.key)
        guard case let .playlist(state, form) = await request.value else {
            Issue.record("expected the playlist, got \(await request.value)")
            return
        }
        #expect(state == listing && form == .full)
        #expect(state.playlist.segments.last?.parts.last?.uri == "index-1.2.m4s")
        #expect(registry.waitingCount == 0 && clock.sleeping == 0, "the timeout's sleep was cancelled")
    }

    @Test("a part that does not come within three target durations is a timeout; not before")
    func timeout() async throws {
        let live = try Live(parts: 1)
        let (clock, registry) = (live.clock, live.registry)
        let request = Task { await registry.playlist(for: Self.key, directives: .init(mediaSequenceNumber: 0, partIndex: 2)) }
        #expect(await Self.waitUntil { clock.sleeping == 1 })
        clock.advance(by: .milliseconds(2900))
        try await Task.sleep(for: .milliseconds(50))
        #expect(registry.waitingCount == 1)
        clock.advance(by: .milliseconds(100))
        #expect(await request.value == .timedOut)
        #expect(registry.waitingCount == 0)
    }

    @Test("answered at once: a part already listed, a delta update, a request too far ahead (400), an unknown output (404)")
    func immediate() async throws {
        let registry = try Live(parts: 30).registry
        guard case let .playlist(state, form) = await registry.playlist(for: Self.key, directives: .init(mediaSequenceNumber: 5, partIndex: 1, skip: .yes)) else {
            Issue.record("no playlist")
            return
        }
        #expect(form == .deltaUpdate)
        // Ten 1 s segments and a skip boundary of 6 s: the oldest are skipped.
        #expect(state.playlist.render(form).contains("#EXT-X-SKIP:SKIPPED-SEGMENTS="))
        let ahead = await registry.playlist(for: Self.key, directives: .init(mediaSequenceNumber: 13))
        guard case .badRequest = ahead else {
            Issue.record("expected 400, got \(ahead)")
            return
        }
        #expect(await registry.playlist(for: LivePlaylistKey(jobID: "cam", output: 1), directives: .init()) == .notFound)
    }

    @Test("an output that ends answers its waiting requests 404 and is no longer served")
    func retire() async throws {
        let registry = try Live(parts: 1).registry
        let request = Task { await registry.playlist(for: Self.key, directives: .init(mediaSequenceNumber: 0, partIndex: 2)) }
        #expect(await Self.waitUntil { registry.waitingCount == 1 })
        registry.retire(Self.key)
        #expect(await request.value == .notFound)
        #expect(registry.current(Self.key) == nil)
    }

    @Test("the hinted next part waits for its bytes; other names are answered at once")
    func preloadHint() async throws {
        var live = try Live(parts: 1)
        let registry = live.registry
        #expect(registry.current(Self.key)?.playlist.preloadHint?.uri == "index-0.1.m4s")
        #expect(await registry.resource(named: "index-0.0.m4s", for: Self.key) != nil)
        let request = Task { await registry.resource(named: "index-0.1.m4s", for: Self.key) }
        #expect(await Self.waitUntil { registry.waitingCount == 1 })
        try live.publish()
        #expect(await request.value?.lists("index-0.1.m4s") == true)
    }

    @Test("a cancelled request leaves nothing parked")
    func cancelled() async throws {
        let live = try Live(parts: 1)
        let (clock, registry) = (live.clock, live.registry)
        let request = Task { await registry.playlist(for: Self.key, directives: .init(mediaSequenceNumber: 1)) }
        #expect(await Self.waitUntil { registry.waitingCount == 1 && clock.sleeping == 1 })
        request.cancel()
        #expect(await request.value == .timedOut)
        #expect(registry.waitingCount == 0 && clock.sleeping == 0)
    }
}
