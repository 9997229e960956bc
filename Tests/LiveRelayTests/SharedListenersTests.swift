import Testing
@testable import LiveRelay

/// The table of listeners jobs share: a listener is named by its key and its generation, so a late bind or connection
/// of one that closed never touches the one that came back on its port.
@Suite struct SharedListenersTests {
    /// A listener's routes, as a registry keeps them.
    struct Routes: Sendable, Equatable {
        var paths: [String]
    }

    @Test func aNewPortGetsAGenerationToBindAndAKnownOneDoesNot() {
        let listeners = SharedListeners<Routes>()
        let first = listeners.withLocked { $0.put("127.0.0.1:1935", Routes(paths: ["a"])) }
        let again = listeners.withLocked { $0.put("127.0.0.1:1935", Routes(paths: ["a", "b"])) }
        let other = listeners.withLocked { $0.put("127.0.0.1:1936", Routes(paths: ["c"])) }
        #expect(first != nil && again == nil && other != nil && other != first)
        #expect(listeners.withLocked { $0["127.0.0.1:1935"] } == Routes(paths: ["a", "b"]))
        // Nothing is bound in this test: no port counts as listening.
        #expect(listeners.listeningPorts == 0)
    }

    @Test func theLastRouteLeavingTakesTheListenerOut() {
        let listeners = SharedListeners<Routes>()
        _ = listeners.withLocked { $0.put("k", Routes(paths: ["a", "b"])) }
        listeners.leave("k") { routes in
            routes.paths.removeAll { $0 == "a" }
            return !routes.paths.isEmpty
        }
        #expect(listeners.withLocked { $0["k"] } == Routes(paths: ["b"]))
        listeners.leave("k") { routes in
            routes.paths.removeAll { $0 == "b" }
            return !routes.paths.isEmpty
        }
        #expect(listeners.withLocked { $0["k"] } == nil)
        // Leaving a port no one listens on changes nothing.
        listeners.leave("k") { _ in Issue.record("asked about a listener that is gone"); return false }
    }

    @Test func anOldGenerationIsNeitherReadNorChanged() throws {
        let listeners = SharedListeners<Routes>()
        let old = try #require(listeners.withLocked { $0.put("k", Routes(paths: ["a"])) })
        listeners.leave("k") { _ in false }
        let current = try #require(listeners.withLocked { $0.put("k", Routes(paths: ["new"])) })
        #expect(current != old)
        listeners.withLocked { table in
            #expect(table["k", old] == nil)
            table["k", old] = Routes(paths: ["stale"])
            #expect(table["k", current] == Routes(paths: ["new"]))
            table["k", current]?.paths.append("more")
        }
        #expect(listeners.withLocked { $0["k"] } == Routes(paths: ["new", "more"]))
    }
}
