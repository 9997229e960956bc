// libFuzzer target: RTP packets (RFC 3550) through the H.264 (RFC 6184), H.265 (RFC 7798), AAC (RFC 3640),
// MP4A-LATM (RFC 6416), AV1 (AOMedia v1.0.0), VP8 (RFC 7741) and VP9 (RFC 9628) depacketizers, the last three on
// through the RTP edge to av01, vp08 and vp09 tags. The first byte
// chooses the codec; the rest is packets separated by "FUZZ" (for LATM the first part is the StreamMuxConfig, read as
// the SDP's config is).
import MediaFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let (selector, rest) = FuzzInput(data, size).selectorAndRest else { return 0 }
    let packets = FuzzInput(bytes: rest).parts.compactMap { try? RTPPacket(parsing: $0) }
    for packet in packets {
        // What is read writes back to what was read.
        guard (try? RTPPacket(parsing: packet.serialized)) == packet else { fatalError("RTP packet \(packet) does not read back") }
    }
    switch selector % 7 {
    case 0:
        var depacketizer = H264Depacketizer()
        for packet in packets { check(depacketizer.depacketize(packet)) }
    case 1:
        var depacketizer = H265Depacketizer()
        for packet in packets { check(depacketizer.depacketize(packet)) }
    case 4:
        var depacketizer = AV1Depacketizer()
        for packet in packets { check(depacketizer.depacketize(packet)) }
        edge(packets, codec: .av1, fourCC: .av01)
    case 5:
        var depacketizer = VP8Depacketizer()
        for packet in packets { check(depacketizer.depacketize(packet)) }
        edge(packets, codec: .vp8, fourCC: .vp08)
    case 6:
        var depacketizer = VP9Depacketizer()
        for packet in packets { check(depacketizer.depacketize(packet)) }
        edge(packets, codec: .vp9, fourCC: .vp09)
    case 3:
        let parts = FuzzInput(bytes: rest).parts
        guard let first = parts.first, let config = try? LATMStreamMuxConfig(bytes: first) else { return 0 }
        // What is read is an AudioSpecificConfig that reads back the same.
        guard (try? AudioSpecificConfig(parsing: config.audioSpecificConfig.bytes)) == config.audioSpecificConfig else {
            fatalError("the StreamMuxConfig's AudioSpecificConfig does not read back")
        }
        var depacketizer = LATMDepacketizer(config: config)
        for packet in parts.dropFirst().compactMap({ try? RTPPacket(parsing: $0) }) {
            var frames = 0
            for case let .frame(frame) in depacketizer.depacketize(packet) {
                guard !frame.bytes.isEmpty, frame.bytes.count <= LATMDepacketizer.maxElementBytes + packet.payload.count else {
                    fatalError("an LATM frame of \(frame.bytes.count) octets")
                }
                frames += 1
            }
            guard frames <= packet.payload.count else { fatalError("\(frames) frames from \(packet.payload.count) octets") }
        }
    default:
        // AAC-hbr, or AAC-lbr's shorter fields when the selector's next bit says so.
        let lbr = selector & 0x80 != 0
        guard let config = try? AudioSpecificConfig(parsing: [0x12, 0x10]) else { fatalError("the fixed AAC config does not read") }
        var depacketizer = AACDepacketizer(parameters: MPEG4GenericParameters(
            mode: lbr ? "AAC-lbr" : "AAC-hbr", sizeLength: lbr ? 6 : 13, indexLength: lbr ? 2 : 3, indexDeltaLength: lbr ? 2 : 3, config: config))
        for packet in packets {
            for case let .frame(frame) in depacketizer.depacketize(packet) where frame.bytes.count > (1 << 16) {
                fatalError("an AAC frame of \(frame.bytes.count) octets, beyond a 16-bit AU size")
            }
        }
    }
    return 0
}

/// The packets through the RTP edge as one video stream: what it makes reads back as a `fourCC` video tag.
private func edge(_ packets: [RTPPacket], codec: RTPTrackCodec, fourCC: FLVVideoFourCC) {
    var converter = RTPToFLVConverter(tracks: [RTPTrackFormat(payloadType: packets.first?.payloadType ?? 96, clockRate: 90000, codec: codec)])
    for packet in packets {
        for tag in converter.feed(packet.serialized, track: 0, arrival: 0) {
            guard let video = try? FLVVideoData(parsing: tag.data[...]), video.tracks.first?.codec == .fourCC(fourCC) else {
                fatalError("the \(codec.name) edge made a tag that does not read as \(fourCC)")
            }
        }
    }
}

/// Every access unit holds NAL units with their headers, within the size limit.
private func check(_ outputs: [RTPVideoDepacketizerOutput]) {
    for case let .accessUnit(accessUnit) in outputs {
        guard !accessUnit.nalUnits.isEmpty, accessUnit.nalUnits.allSatisfy({ !$0.isEmpty }) else {
            fatalError("an access unit with no NAL unit or an empty one")
        }
        guard accessUnit.nalUnits.reduce(0, { $0 + $1.count }) <= 16 << 20 else { fatalError("an access unit over the limit") }
    }
}
