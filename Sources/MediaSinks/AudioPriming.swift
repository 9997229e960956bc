import MediaFormats

/// The samples an audio encoder put before the media (its priming), which players skip through an edit list: what the
/// source says where it says it, else what the codec's encoders prime with.
package enum AudioPriming {
    /// 1,024 samples: every AAC LC encoder's priming (one frame of MDCT overlap), when the source does not say.
    package static let aacLC = 1024
    /// The largest priming believed from a source (a second at 96 kHz): a larger value is damage, not priming.
    package static let maximum = 96_000

    /// The priming of an AAC stream: the skip-samples side data of its first packet (libavformat's reading of an MP4
    /// edit list), else the stream's `initial_padding`, else 1,024 for AAC LC (FLV, RTMP, ADTS and MPEG-TS carry none).
    package static func aac(_ config: AudioSpecificConfig, firstPacketSkipSamples: [UInt8]?, initialPadding: Int) -> Int {
        if let skip = firstPacketSkipSamples.flatMap(skipFromStart), skip > 0 { return skip }
        if (1...maximum).contains(initialPadding) { return initialPadding }
        return config.coreObjectType == AudioObjectType.aacLC && config.objectType == AudioObjectType.aacLC ? aacLC : 0
    }

    /// AV_PKT_DATA_SKIP_SAMPLES: samples to skip from the start (32 bits little-endian), from the end (32 bits), the
    /// reason for each (8 bits each). Nil when shorter, or out of range.
    package static func skipFromStart(_ sideData: [UInt8]) -> Int? {
        guard sideData.count >= 4 else { return nil }
        let value = Int(sideData[0]) | Int(sideData[1]) << 8 | Int(sideData[2]) << 16 | Int(sideData[3]) << 24
        return (0...maximum).contains(value) ? value : nil
    }
}
