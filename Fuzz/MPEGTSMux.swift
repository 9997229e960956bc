// libFuzzer target: mux then demux. Input parts (separated by "FUZZ") become H.264, AAC and Opus access units; the
// muxer's output must be whole packets that the demuxer reads back without an error, to the same payloads.
import MediaFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let (selector, rest) = FuzzInput(data, size).selectorAndRest,
          let config = try? AudioSpecificConfig(objectType: 2, samplingFrequency: 48000, channelConfiguration: 2),
          var muxer = try? TSMuxer(streams: [.video(.h264), .audio(.aac), .init(pid: 0x102, codec: .opus(.init(channelConfigCode: 2)))])
    else { return 0 }
    var out: [UInt8] = []
    var expected: [UInt16: [[UInt8]]] = [:]
    for (index, part) in FuzzInput(bytes: rest).parts.enumerated() {
        let pid: UInt16 = [0x100, 0x101, 0x102][(Int(selector) + index) % 3]
        let time = Int64(index) * Int64(selector) * 100
        // Video is written with an AUD so the payload comes back as given (an IDR without parameter sets stays so).
        let payload = pid == 0x100 ? [0, 0, 0, 1, 0x09, 0xF0, 0, 0, 0, 1, 0x01] + part.filter { $0 != 0 } : part
        let unit = TSMuxer.AccessUnit(pid: pid, pts: time, payload: payload, audioSpecificConfig: config)
        guard (try? muxer.write(unit, into: &out)) != nil else { continue }
        expected[pid, default: []].append(payload)
    }
    guard out.count % 188 == 0 else { fatalError("muxer wrote a partial packet") }
    var demuxer = TSDemuxer()
    let events = demuxer.feed(out) + demuxer.flush()
    var found: [UInt16: [[UInt8]]] = [:]
    for event in events {
        switch event {
        case let .accessUnit(unit): found[unit.pid, default: []].append(unit.payload)
        case let .error(error): fatalError("demuxing the muxer's output: \(error)")
        default: break
        }
    }
    guard found == expected.filter({ !$0.value.isEmpty }) else { fatalError("mux → demux changed the access units") }
    return 0
}
