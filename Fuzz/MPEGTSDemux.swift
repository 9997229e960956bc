// libFuzzer target: the incremental TS demuxer (sync, PAT/PMT, PES reassembly, ADTS and Opus splitting) and the TS
// structures it reads. The same bytes fed at once and in two pieces must give the same events.
import MediaFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = FuzzInput(data, size).bytes

    var whole = TSDemuxer(maxPESSize: 1 << 16)
    let events = whole.feed(bytes) + whole.flush()
    let cut = bytes.isEmpty ? 0 : Int(bytes[0]) * bytes.count / 256
    var pieces = TSDemuxer(maxPESSize: 1 << 16)
    let pieceEvents = pieces.feed(bytes[..<cut]) + pieces.feed(bytes[cut...]) + pieces.flush()
    guard events == pieceEvents, whole.statistics == pieces.statistics else {
        fatalError("TS demuxer events depend on how the input was cut (at \(cut))")
    }
    for event in events {
        if case let .accessUnit(unit) = event, unit.payload.count > bytes.count {
            fatalError("an access unit larger than the input")
        }
    }

    // The structures on their own, from every offset a packet could start at.
    for start in stride(from: 0, to: min(bytes.count, 64), by: 1) {
        let slice = bytes[start...]
        if let (field, length) = try? TSAdaptationField.parse(slice) {
            var written: [UInt8] = []
            field.write(encodedLength: max(length, field.minimumEncodedLength), into: &written)
            guard let reread = try? TSAdaptationField.parse(written[...]), reread.field.pcr == field.pcr else {
                fatalError("adaptation field \(field) does not read back")
            }
        }
        if let section = try? PSISection(parsing: slice) {
            _ = try? ProgramAssociationTable(section: section)
            _ = try? ProgramMapTable(section: section).section()
        }
        _ = try? PESPacketHeader(parsing: slice)
        _ = try? OpusControlHeader(parsing: slice)
    }
    return 0
}
