import CFFmpeg

/// What a ladder's video rungs scaled from one decoded frame, so a smaller rung scales from a larger rung's picture
/// rather than from the decoded one: 1080p → 720p, then 720p → 480p and 480p → 360p, as a cascade of scalers does.
/// Bicubic from a picture 1.5× the target reads half the lines it would read from one 3× the target; libswscale was
/// a quarter of a 1080p ladder's CPU with every rung scaled from the decoded picture (docs/BENCHMARKS.md).
///
/// Frames are numbered by the chains themselves: every chain takes every decoded frame, so the n-th frame a chain
/// took is the n-th for all of them. A rung's entry names the frame its picture came from; a larger rung that skipped
/// that frame (a lower frame rate) has an entry for an older one, which does not match, and the decoded picture is
/// scaled instead. Used on the input thread only, by the `VideoEncodeChain`s of one `VideoTranscoder`.
final class ScaleCascade {
    private struct Scaled {
        let frame: Int
        let picture: UnsafeMutablePointer<AVFrame>
        var width: Int { Int(picture.pointee.width) }
        var height: Int { Int(picture.pointee.height) }
        var area: Int { width * height }
    }

    /// One entry per chain (its `cascadeIndex`): the picture it scaled last, or nil before its first.
    private var latest: [Scaled?]

    init(chains: Int) {
        latest = Array(repeating: nil, count: chains)
    }

    /// The smallest picture scaled from frame `frame` that is at least `target` on both sides and smaller than
    /// `decoded`; `decoded` itself when there is none.
    func source(frame: Int, target: PictureSize, decoded: UnsafeMutablePointer<AVFrame>) -> UnsafeMutablePointer<AVFrame> {
        let decodedArea = Int(decoded.pointee.width) * Int(decoded.pointee.height)
        var best: Scaled?
        for case let entry? in latest where entry.frame == frame
            && entry.width >= target.width && entry.height >= target.height && entry.area < decodedArea {
            if let chosen = best, chosen.area <= entry.area { continue }
            best = entry
        }
        return best?.picture ?? decoded
    }

    /// Chain `index` scaled frame `frame` into `picture`; it stays valid until the chain scales again.
    func record(index: Int, frame: Int, picture: UnsafeMutablePointer<AVFrame>) {
        guard latest.indices.contains(index) else { return }
        latest[index] = Scaled(frame: frame, picture: picture)
    }

    /// The order the chains take a frame in so that every larger rung has scaled before a smaller one looks: by
    /// target area, largest first; equal areas keep their order.
    static func order(sizes: [PictureSize]) -> [Int] {
        sizes.indices.sorted { left, right in
            let (a, b) = (sizes[left].width * sizes[left].height, sizes[right].width * sizes[right].height)
            return a != b ? a > b : left < right
        }
    }
}
