import NIOConcurrencyHelpers

/// The engine's RTSP client ports: blocks of `blockSize` consecutive ports (RTP even, RTCP odd, a pair per track) from
/// the configured range, each held by one UDP pull while it runs.
///
/// `Sendable` through its lock: sessions on every event loop take and give back blocks.
final class RTSPPortBlocks: Sendable {
    /// Four tracks a pull (a camera's video, audio and a spare pair or two); a camera with more plays the first four.
    static let blockSize = 8

    private let range: ClosedRange<Int>
    private let used = NIOLockedValueBox<(taken: Set<Int>, next: Int)>(([], 0))

    init(range: ClosedRange<Int>) {
        // The first block starts on an even port: RTP goes on even ports (RFC 3550 §11).
        let first = range.lowerBound + range.lowerBound % 2
        self.range = first...range.upperBound
    }

    /// Blocks the range holds.
    var capacity: Int { max(0, (range.upperBound - range.lowerBound + 1) / Self.blockSize) }

    /// The first port of a free block, going round the range so a block just given back is taken last; nil when all are held.
    func take() -> Int? {
        used.withLockedValue { state in
            let count = capacity
            for step in 0..<count {
                let index = (state.next + step) % count
                let first = range.lowerBound + index * Self.blockSize
                if !state.taken.contains(first) {
                    state.taken.insert(first)
                    state.next = index + 1
                    return first
                }
            }
            return nil
        }
    }

    func giveBack(_ first: Int) {
        _ = used.withLockedValue { $0.taken.remove(first) }
    }
}
