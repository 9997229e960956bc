// ISO/IEC 14496-12 (2022) §8.5.2 Sample Description Box ('stsd') and the sample tables a fragmented file leaves empty
// (§8.8.1: the samples are in the movie fragments): §8.6.1.2 'stts', §8.7.4 'stsc', §8.7.3.2 'stsz', §8.7.5 'stco'.

/// `stsd`: the sample entries of a track (one here, numbered 1 by `trex`).
public struct SampleDescriptionBox: MP4Box {
    public var entries: [any MP4Box]

    /// A description holding `entries`.
    public init(entries: [any MP4Box]) { self.entries = entries }

    public var boxType: MP4FourCC { "stsd" }
    /// FullBox fields + entry_count + the entries.
    public var payloadSize: Int { 8 + entries.reduce(0) { $0 + $1.size } }

    public func writePayload(into out: inout [UInt8]) throws {
        MP4BoxHeader.writeFullBoxFields(version: 0, flags: 0, into: &out)
        out.appendUInt32(UInt32(entries.count))  // one or a few entries, never near 2^32
        for entry in entries { try entry.write(into: &out) }
    }
}

/// An empty sample table box: a FullBox whose counts are all zero.
public struct EmptySampleTableBox: MP4Box, Equatable {
    public var boxType: MP4FourCC
    /// 32-bit zero fields after version and flags: one (entry_count) for stts, stsc and stco, two (sample_size,
    /// sample_count) for stsz.
    var zeroFieldCount: Int

    /// Time-to-sample (`stts`).
    public static let timeToSample = EmptySampleTableBox(boxType: "stts", zeroFieldCount: 1)
    /// Sample-to-chunk (`stsc`).
    public static let sampleToChunk = EmptySampleTableBox(boxType: "stsc", zeroFieldCount: 1)
    /// Sample sizes (`stsz`).
    public static let sampleSize = EmptySampleTableBox(boxType: "stsz", zeroFieldCount: 2)
    /// Chunk offsets (`stco`).
    public static let chunkOffset = EmptySampleTableBox(boxType: "stco", zeroFieldCount: 1)
    /// The four, in the order §8.5.1 lists them after `stsd`.
    public static let all = [timeToSample, sampleToChunk, sampleSize, chunkOffset]

    public var payloadSize: Int { MP4BoxHeader.fullBoxFieldsSize + 4 * zeroFieldCount }

    public func writePayload(into out: inout [UInt8]) {
        out.append(contentsOf: repeatElement(0, count: payloadSize))
    }
}
