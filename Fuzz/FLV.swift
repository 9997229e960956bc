// libFuzzer target: the incremental FLV reader (header, tag headers, PreviousTagSize chain) fed in uneven chunks,
// and each tag's audio/video tag header, payload and script data (AMF0 onMetaData).
import MediaFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let (selector, bytes) = FuzzInput(data, size).selectorAndRest else { return 0 }
    var reader = FLVReader()
    // Chunks of 1…256 bytes, chosen by the first input byte: the reader must not depend on how bytes arrive.
    let chunkSize = Int(selector) + 1
    var start = 0
    var tags = 0
    while start < bytes.count {
        let end = min(start + chunkSize, bytes.count)
        reader.append(bytes[start..<end])
        start = end
        while true {
            guard let tag = try? reader.nextTag() else { break }
            tags += 1
            guard tags <= bytes.count else { fatalError("FLV reader returned more tags than bytes") }
            _ = try? tag.videoTagHeader()
            _ = try? tag.audioTagHeader()
            _ = try? tag.payload()
            if let script = try? tag.scriptData() {
                var written: [UInt8] = []
                _ = try? script.write(into: &written)
            }
        }
    }
    _ = (reader.offset, reader.bufferedByteCount, reader.header)
    // The same bytes as one tag header and one of each tag-body header.
    var tagHeaderReader = ByteReader(bytes)
    _ = try? FLVTagHeader(parsing: &tagHeaderReader)
    var videoReader = ByteReader(bytes)
    _ = try? FLVVideoTagHeader(parsing: &videoReader)
    var audioReader = ByteReader(bytes)
    _ = try? FLVAudioTagHeader(parsing: &audioReader)
    var scriptReader = ByteReader(bytes)
    _ = try? FLVScriptData(parsing: &scriptReader)
    return 0
}
