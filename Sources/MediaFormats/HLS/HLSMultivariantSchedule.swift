// RFC 8216bis §4.4.6.2 and §6.2.4: every variant a multivariant playlist lists must be playable, so the playlist is
// written first once each variant's media playlist names a segment, and again whenever a variant's measured
// BANDWIDTH rises past what was listed (a client that picked a variant by it would stall).

/// When a job's multivariant playlist is written, and what it says: the variants' facts as their streams were
/// written (codecs, resolution, frame rate) and their bit rates as measured (`HLSBitrateMeter`). Pure: the owner
/// writes the playlist each `record` or `describe` returns.
public struct HLSMultivariantSchedule: Sendable, Equatable {
    /// What one variant's stream is, known once its init segment is written.
    public struct StreamFacts: Sendable, Equatable {
        /// RFC 6381 strings, video first (`CodecString`).
        public var codecs: [String]
        public var width: Int?
        public var height: Int?
        /// Frames per second; nil when unknown (audio only).
        public var frameRate: Double?

        public init(codecs: [String], width: Int? = nil, height: Int? = nil, frameRate: Double? = nil) {
            self.codecs = codecs
            self.width = width
            self.height = height
            self.frameRate = frameRate
        }
    }

    private struct Variant: Sendable, Equatable {
        var uri: String
        var facts: StreamFacts?
        var meter: HLSBitrateMeter
    }

    /// EXT-X-VERSION the media playlists print.
    public let version: Int
    private var variants: [Variant]
    /// What the last playlist handed out listed per variant; nil before the first.
    public private(set) var listedBandwidths: [UInt64]?

    /// A schedule for variants at `uris` (relative to the multivariant playlist), in the order they are listed, each
    /// media playlist with target duration `targetDuration` seconds.
    public init(uris: [String], targetDuration: Int, version: Int) {
        variants = uris.map { Variant(uri: $0, facts: nil, meter: HLSBitrateMeter(targetDuration: targetDuration)) }
        self.version = version
    }

    /// Variant `index`'s stream facts (its init segment was written). Returns a playlist to write, or nil.
    public mutating func describe(_ index: Int, _ facts: StreamFacts) -> HLSMultivariantPlaylist? {
        guard variants.indices.contains(index) else { return nil }
        variants[index].facts = facts
        return due()
    }

    /// Variant `index` published a segment. Returns a playlist to write, or nil.
    public mutating func record(_ index: Int, segment: HLSBitrateMeter.Segment) -> HLSMultivariantPlaylist? {
        guard variants.indices.contains(index) else { return nil }
        variants[index].meter.add(segment)
        return due()
    }

    /// The playlist as it stands, with every measurement so far (the job's end); nil while a variant has no segment.
    public var playlist: HLSMultivariantPlaylist? {
        guard variants.allSatisfy({ $0.facts != nil && $0.meter.segmentCount > 0 }) else { return nil }
        return HLSMultivariantPlaylist(version: version, variants: variants.map { variant in
            let facts = variant.facts ?? StreamFacts(codecs: [])
            let resolution = facts.width.flatMap { width in facts.height.map { (width: width, height: $0) } }
            return HLSMultivariantPlaylist.VariantStream(
                bandwidth: variant.meter.bandwidth ?? 0, averageBandwidth: variant.meter.averageBandwidth,
                codecs: facts.codecs, resolution: resolution, frameRate: facts.frameRate, uri: variant.uri)
        })
    }

    /// The first playlist once every variant has a segment, then one whenever a variant's peak passes its listing.
    private mutating func due() -> HLSMultivariantPlaylist? {
        guard let playlist else { return nil }
        let bandwidths = playlist.variants.map(\.bandwidth)
        if let listed = listedBandwidths, !zip(bandwidths, listed).contains(where: { $0 > $1 }) { return nil }
        listedBandwidths = bandwidths
        return playlist
    }
}
