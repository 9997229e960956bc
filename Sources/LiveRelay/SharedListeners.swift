import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// The TCP listeners jobs share, one per host:port (RTMP ingest, WHIP and WHEP): bound when the first job claims its
/// port and closed when the last lets it go. Each is a value in one locked table, named by its key and its generation,
/// so a listener that closed and came back on the same port is never taken for the old one by a late bind or
/// connection. `Listener` is what a registry keeps of each: its routes and counts.
final class SharedListeners<Listener: Sendable>: Sendable {
    struct Entry: Sendable {
        let generation: Int
        var channel: (any Channel)?
        var listener: Listener
    }

    struct Table: Sendable {
        private(set) var entries: [String: Entry] = [:]
        private var generations = 0

        /// The listener under `key`, whatever its generation.
        subscript(key: String) -> Listener? {
            entries[key]?.listener
        }

        /// The listener under `key` while it is generation `generation`; a change is kept only then.
        subscript(key: String, generation: Int) -> Listener? {
            get { entries[key].flatMap { $0.generation == generation ? $0.listener : nil } }
            set {
                guard let newValue, entries[key]?.generation == generation else { return }
                entries[key]?.listener = newValue
            }
        }

        /// Keeps `listener` under `key`: the one there changed, or a new one, whose generation is returned to be bound.
        mutating func put(_ key: String, _ listener: Listener) -> Int? {
            guard entries[key] == nil else {
                entries[key]?.listener = listener
                return nil
            }
            generations += 1
            entries[key] = Entry(generation: generations, listener: listener)
            return generations
        }

        fileprivate mutating func adopt(_ channel: any Channel, _ key: String, _ generation: Int) -> Bool {
            guard entries[key]?.generation == generation else { return false }
            entries[key]?.channel = channel
            return true
        }

        fileprivate mutating func leave(_ key: String, _ change: (inout Listener) -> Bool) -> (any Channel)? {
            guard var entry = entries[key] else { return nil }
            guard change(&entry.listener) else { return entries.removeValue(forKey: key)?.channel }
            entries[key] = entry
            return nil
        }

        fileprivate mutating func removeAll() -> [any Channel] {
            defer { entries = [:] }
            return entries.values.compactMap(\.channel)
        }

        fileprivate mutating func abandon(_ key: String, _ generation: Int) -> Listener? {
            guard entries[key]?.generation == generation else { return nil }
            return entries.removeValue(forKey: key)?.listener
        }
    }

    private let table = NIOLockedValueBox(Table())

    /// `body` with the table, under its lock.
    func withLocked<T>(_ body: (inout Table) -> T) -> T {
        table.withLockedValue(body)
    }

    /// Ports listening now.
    var listeningPorts: Int { table.withLockedValue { $0.entries.values.filter { $0.channel != nil }.count } }

    /// A job lets its route on `key` go: `change` takes it out of the listener and says whether any route is left. A
    /// listener with none left is taken out of the table and closed.
    func leave(_ key: String, _ change: (inout Listener) -> Bool) {
        table.withLockedValue { $0.leave(key, change) }?.close(promise: nil)
    }

    /// Closes every listener (the engine shuts down).
    func closeAll() {
        for channel in table.withLockedValue({ $0.removeAll() }) { channel.close(promise: nil) }
    }

    /// Binds the listener `generation` of `key` to host:port (an address literal without a lookup, a name resolved by
    /// NIO). A channel bound after its listener closed is closed at once; a bind that fails takes the listener out of
    /// the table and hands it, with the error, to `failed`.
    func bind(_ bootstrap: ServerBootstrap, key: String, generation: Int, host: String, port: Int,
              failed: @escaping @Sendable (Listener, any Error) -> Void) {
        let bound = (try? SocketAddress(ipAddress: host, port: port)).map { bootstrap.bind(to: $0) } ?? bootstrap.bind(host: host, port: port)
        bound.whenComplete { [self] result in
            switch result {
            case let .success(channel):
                if !table.withLockedValue({ $0.adopt(channel, key, generation) }) { channel.close(promise: nil) }
            case let .failure(error):
                if let listener = table.withLockedValue({ $0.abandon(key, generation) }) { failed(listener, error) }
            }
        }
    }
}
