// libFuzzer target: the MPEG-TS edge of the live relay. Bytes become FLV tags (TSToFLVConverter); the same bytes fed
// at once and in two pieces must give the same events, every tag must parse as FLV audio or video data with a time at
// or after 0, and the tags must go back through FLVToTSConverter as whole packets.
import MediaFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = FuzzInput(data, size).bytes

    var whole = TSToFLVConverter(maxPESSize: 1 << 16)
    let events = whole.feed(bytes) + whole.flush()
    let cut = bytes.isEmpty ? 0 : Int(bytes[0]) * bytes.count / 256
    var pieces = TSToFLVConverter(maxPESSize: 1 << 16)
    let pieceEvents = pieces.feed(bytes[..<cut]) + pieces.feed(bytes[cut...]) + pieces.flush()
    guard events == pieceEvents, whole.statistics == pieces.statistics else {
        fatalError("TS → FLV events depend on how the input was cut (at \(cut))")
    }

    var back = FLVToTSConverter(expectsVideo: true, expectsAudio: true)
    var datagrams: [[UInt8]] = []
    for event in events {
        guard case let .tag(tag) = event else { continue }
        guard tag.timestamp >= 0 else { fatalError("a tag before 0: \(tag.timestamp)") }
        switch tag.type {
        case .video: guard (try? FLVVideoData(parsing: tag.data)) != nil else { fatalError("video tag data does not parse") }
        case .audio: guard (try? FLVAudioData(parsing: tag.data)) != nil else { fatalError("audio tag data does not parse") }
        case .scriptData: fatalError("no script data is made")
        }
        guard let out = try? back.feed(tag) else { fatalError("a tag made from TS has no TS mapping") }
        datagrams += out
    }
    datagrams += back.flush()
    guard datagrams.allSatisfy({ !$0.isEmpty && $0.count % 188 == 0 && $0.count <= 1316 }) else {
        fatalError("FLV → TS datagrams are not whole packets")
    }
    return 0
}
