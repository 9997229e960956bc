// libFuzzer target: FLV video and audio tag data, legacy and enhanced (ex-headers, ModEx, multitrack), and the
// codec configurations their tracks carry (hvcC, av1C, vpcC, OpusHead, multichannel config). A message that parses
// and writes must parse back to itself; the relay's prefix readers (FLVVideoTagPrefix, FLVAudioTagPrefix) must read
// every message the full parsers read, and agree with them; one track of a multitrack message, alone
// (FLVTrackSelection), must be that track.
import MediaFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let (selector, bytes) = FuzzInput(data, size).selectorAndRest else { return 0 }
    switch selector % 3 {
    case 0:  // video tag data (seeds use 9, the video TagType)
        let prefix = try? FLVVideoTagPrefix(parsing: bytes)
        guard let video = try? FLVVideoData(parsing: bytes) else { return 0 }
        _ = (video.isKeyframe, video.isSequenceStart, video.isEnhanced)
        guard let prefix, prefix.frameType == video.frameType, prefix.packetType == video.packetType,
              prefix.codec == video.tracks.first?.codec, prefix.trackID == (video.tracks.first?.id ?? 0),
              prefix.isKeyframe == video.isKeyframe else {
            fatalError("FLVVideoTagPrefix disagrees with FLVVideoData")
        }
        for track in video.tracks where video.packetType == .sequenceStart {
            let payload = Array(track.payload)
            switch track.codec.fourCC {
            case .hvc1?: _ = try? HEVCDecoderConfigurationRecord(parsing: payload)
            case .av01?: _ = try? AV1CodecConfigurationRecord(parsing: payload).sequenceHeader()
            case .vp09?, .vp08?: _ = try? VPCodecConfigurationRecord(parsing: payload)
            case .avc1?: _ = try? AVCDecoderConfigurationRecord(parsing: payload)
            default: break
            }
        }
        if let written = try? video.serialized() {
            guard let again = try? FLVVideoData(parsing: written), again.tracks.count == video.tracks.count,
                  (try? again.serialized()) == written else {
                fatalError("FLV video data written by FLVVideoData does not read back")
            }
        }
        // One track as a single-track message (what a destination without multitrack gets): that track alone, as 0.
        // (The first track of an id: a message may repeat one.)
        for (index, track) in video.tracks.enumerated() where video.multitrackType != nil && !video.tracks[..<index].contains(where: { $0.id == track.id }) {
            guard case let .rewritten(single)? = try? FLVTrackSelection.video(bytes[...], track: track.id) else { continue }
            guard let alone = try? FLVVideoData(parsing: single), alone.multitrackType == nil, alone.tracks.count == 1,
                  alone.tracks[0].id == 0, alone.tracks[0].payload == track.payload, alone.tracks[0].codec == track.codec,
                  alone.packetType == video.packetType, alone.frameType == video.frameType else {
                fatalError("FLVTrackSelection's single-track message is not the track")
            }
        }
    case 2:  // audio tag data (seeds use 8, the audio TagType)
        let prefix = try? FLVAudioTagPrefix(parsing: bytes)
        guard let audio = try? FLVAudioData(parsing: bytes) else { return 0 }
        guard let prefix, prefix.packetType == audio.packetType, prefix.codec == audio.tracks.first?.codec,
              prefix.trackID == (audio.tracks.first?.id ?? 0) else {
            fatalError("FLVAudioTagPrefix disagrees with FLVAudioData")
        }
        for track in audio.tracks {
            if audio.packetType == .multichannelConfig { _ = try? FLVAudioMultichannelConfig(parsing: track.payload) }
            if audio.packetType == .sequenceStart, track.codec.fourCC == .opus { _ = try? OpusIDHeader(parsing: Array(track.payload)) }
        }
        if let written = try? audio.serialized() {
            guard let again = try? FLVAudioData(parsing: written), again.tracks.count == audio.tracks.count,
                  (try? again.serialized()) == written else {
                fatalError("FLV audio data written by FLVAudioData does not read back")
            }
        }
        for (index, track) in audio.tracks.enumerated() where audio.multitrackType != nil && !audio.tracks[..<index].contains(where: { $0.id == track.id }) {
            guard case let .rewritten(single)? = try? FLVTrackSelection.audio(bytes[...], track: track.id) else { continue }
            guard let alone = try? FLVAudioData(parsing: single), alone.multitrackType == nil, alone.tracks.count == 1,
                  alone.tracks[0].id == 0, alone.tracks[0].payload == track.payload, alone.packetType == audio.packetType else {
                fatalError("FLVTrackSelection's single-track audio message is not the track")
            }
        }
    default:  // a bare codec configuration
        if let head = try? OpusIDHeader(parsing: bytes), let written = try? head.serialized() {
            guard (try? OpusIDHeader(parsing: written)) == head else { fatalError("OpusHead does not read back") }
        }
        if let record = try? VPCodecConfigurationRecord(parsing: bytes), let written = try? record.serialized() {
            guard (try? VPCodecConfigurationRecord(parsing: written)) == record else { fatalError("vpcC does not read back") }
        }
        _ = try? FLVAudioMultichannelConfig(parsing: bytes[...])
    }
    return 0
}
