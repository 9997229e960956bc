@testable import MediaFormats

/// One packet of muxer output, split into its parts.
struct ParsedTSPacket {
    var header: TSPacketHeader
    var adaptationField: TSAdaptationField?
    var payload: ArraySlice<UInt8>
}

enum TSTestSupport {
    /// Every 188-byte packet of `bytes`, which must be whole packets.
    static func packets(_ bytes: [UInt8]) throws -> [ParsedTSPacket] {
        precondition(bytes.count % TSPacketHeader.packetSize == 0, "not whole packets")
        return try stride(from: 0, to: bytes.count, by: TSPacketHeader.packetSize).map { start in
            let packet = bytes[start..<(start + TSPacketHeader.packetSize)]
            let header = try TSPacketHeader(parsing: packet)
            var offset = start + TSPacketHeader.size
            var field: TSAdaptationField?
            if header.adaptationFieldControl.hasAdaptationField {
                let (parsed, length) = try TSAdaptationField.parse(packet[offset...])
                field = parsed
                offset += length
            }
            return ParsedTSPacket(header: header, adaptationField: field,
                                  payload: header.adaptationFieldControl.hasPayload ? bytes[offset..<packet.endIndex] : [])
        }
    }

    /// The events of `bytes` fed at once, or one byte at a time, then flushed.
    static func demux(_ bytes: [UInt8], byteByByte: Bool = false, maxPESSize: Int = TSDemuxer.defaultMaxPESSize)
        -> (events: [TSDemuxerEvent], statistics: TSDemuxer.Statistics) {
        var demuxer = TSDemuxer(maxPESSize: maxPESSize)
        var events: [TSDemuxerEvent] = []
        if byteByByte { for byte in bytes { events += demuxer.feed(CollectionOfOne(byte)) } }
        else { events = demuxer.feed(bytes) }
        events += demuxer.flush()
        return (events, demuxer.statistics)
    }

    static func accessUnits(_ events: [TSDemuxerEvent]) -> [TSAccessUnit] {
        events.compactMap { if case let .accessUnit(unit) = $0 { unit } else { nil } }
    }

    static func errors(_ events: [TSDemuxerEvent]) -> [TSDemuxerError] {
        events.compactMap { if case let .error(error) = $0 { error } else { nil } }
    }

    // MARK: Access units

    static let sps = H264Fixtures.closedGOPSPS
    static let pps = H264Fixtures.closedGOPPPS
    static let h264AUD: [UInt8] = [0x09, 0xF0]
    /// An IDR access unit with its AUD and parameter sets, padded so it spans several packets.
    static let h264IDR = annexB([h264AUD, sps, pps, H264Fixtures.closedGOPSlices[0] + [UInt8](repeating: 0x5A, count: 700)])
    /// A P access unit with its AUD.
    static func h264P(_ size: Int) -> [UInt8] {
        annexB([h264AUD, H264Fixtures.closedGOPSlices[1] + [UInt8](repeating: 0x33, count: size)])
    }

    static let hevcAUD: [UInt8] = [0x46, 0x01, 0x50]
    /// IDR_W_RADL and TRAIL_R slice segments (headers 0x26 01 and 0x02 01) with made-up payloads.
    static let hevcIDRSlice: [UInt8] = [0x26, 0x01, 0xAF, 0x11] + [UInt8](repeating: 0x44, count: 400)
    static let hevcTrailSlice: [UInt8] = [0x02, 0x01, 0xD0, 0x22] + [UInt8](repeating: 0x55, count: 150)

    static let aacConfig: AudioSpecificConfig = {
        guard let config = try? AudioSpecificConfig(objectType: 2, samplingFrequency: 48000, channelConfiguration: 2) else {
            preconditionFailure("AAC LC 48 kHz stereo is a valid config")
        }
        return config
    }()

    /// A CELT 20 ms Opus packet (TOC 0xFC) of `size` bytes.
    static func opusPacket(_ size: Int, fill: UInt8) -> [UInt8] { [0xFC] + [UInt8](repeating: fill, count: size - 1) }
}
