// libFuzzer target: the RTP edge of RTSP pulls. RTP packets of a video and an audio track become FLV tags
// (RTPToFLVConverter): every tag must parse as FLV audio or video data at a time at or after 0, and the video's times
// must never go back; G.711 (selector bit 2) is decoded instead, into blocks of whole sample frames whose runs never go
// back. The first byte picks the codecs and whether the tracks have a play start (RTP-Info); the rest is parts
// separated by "FUZZ", each a track byte (0 video, 1 audio, 2 none) and an RTP packet.
import MediaFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let (selector, rest) = FuzzInput(data, size).selectorAndRest else { return 0 }
    // A camera's SPS and PPS (320x240 baseline), and AAC LC at 48 kHz mono.
    let sps: [UInt8] = [0x67, 0x42, 0x00, 0x29, 0xE2, 0x90, 0x14, 0x07, 0xB6, 0x02, 0xDC, 0x04, 0x04, 0x06, 0x90, 0x78, 0x91, 0x15]
    let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]
    guard let config = try? AudioSpecificConfig(parsing: [0x11, 0x88]) else { fatalError("the fixed AAC config does not read") }
    let timed = selector & 0x80 != 0
    let video = RTPTrackFormat(payloadType: 96, clockRate: 90000,
                               codec: selector & 1 == 0 ? .h264(parameterSets: [sps, pps]) : .hevc(parameterSets: []),
                               playStartRTPTime: timed ? 90000 : nil)
    let audio = selector & 4 != 0
        ? RTPTrackFormat(payloadType: 97, clockRate: 8000, codec: .g711(selector & 2 == 0 ? .aLaw : .muLaw, channels: 2),
                         playStartRTPTime: timed ? 8000 : nil)
        : RTPTrackFormat(payloadType: 97, clockRate: 48000,
                         codec: selector & 2 == 0 ? .aac(MPEG4GenericParameters(config: config)) : .opus(channels: 2),
                         playStartRTPTime: timed ? 48000 : nil)
    var converter = RTPToFLVConverter(tracks: [video, audio])
    var lastVideo: Int64 = 0
    var runEnd: Int64?
    for (index, part) in FuzzInput(bytes: rest).parts.enumerated() {
        guard let track = part.first else { continue }
        for tag in converter.feed(Array(part.dropFirst()), track: Int(track % 3), arrival: Int64(index) * 7) {
            guard tag.timestamp >= 0 else { fatalError("a tag before 0: \(tag.timestamp)") }
            switch tag.type {
            case .video:
                guard (try? FLVVideoData(parsing: tag.data)) != nil else { fatalError("video tag data does not parse") }
                guard tag.timestamp >= lastVideo else { fatalError("the video's time went back: \(lastVideo) then \(tag.timestamp)") }
                lastVideo = tag.timestamp
            case .audio:
                guard (try? FLVAudioData(parsing: tag.data)) != nil else { fatalError("audio tag data does not parse") }
            case .scriptData:
                fatalError("no script data is made")
            }
        }
        for block in converter.takePCM() {
            guard !block.samples.isEmpty, block.samples.count % 2 == 0, block.channels == 2, block.milliseconds >= 0 else {
                fatalError("a G.711 block of \(block.samples.count) samples for \(block.channels) channels at \(block.milliseconds)")
            }
            if !block.startsRun, block.milliseconds > 0, let end = runEnd, block.milliseconds < end {
                fatalError("a run went back: \(block.milliseconds) ms after one that ended at \(end) ms")
            }
            // A block placed before the origin was clamped to 0: the run's next block may fall inside it.
            runEnd = block.milliseconds > 0 ? block.milliseconds + Int64(block.samples.count / 2) * 1000 / 8000 : nil
        }
    }
    return 0
}
