// MediaFormats hot paths on a real stream, next to a plain memory copy of the same bytes:
// Annex B → AVCC (goal ≥ 1 GB/s) and AVCC → Annex B with parameter-set insertion (goal ≥ 50 % of memcpy).
// Usage: MediaFormatsBench STREAM.h264 (Annex B with access unit delimiters, as scripts/bench makes it).
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import MediaFormats

func fail(_ message: String) -> Never {
    print("MediaFormatsBench: \(message)")
    exit(1)
}

guard CommandLine.arguments.count == 2 else { fail("usage: MediaFormatsBench STREAM.h264") }
guard let file = fopen(CommandLine.arguments[1], "rb") else { fail("cannot open \(CommandLine.arguments[1])") }
var stream: [UInt8] = []
var chunk = [UInt8](repeating: 0, count: 1 << 20)
while true {
    let count = fread(&chunk, 1, chunk.count, file)
    if count <= 0 { break }
    stream.append(contentsOf: chunk[0..<count])
}
fclose(file)

// Access units start at each AUD's start code.
var starts: [Int] = []
for range in AnnexB.nalUnitRanges(in: stream) where NALUnitHeader(stream[range.lowerBound]).nalUnitType == .accessUnitDelimiter {
    let codeLength = range.lowerBound >= 4 && stream[range.lowerBound - 4] == 0 ? 4 : 3
    starts.append(range.lowerBound - codeLength)
}
guard starts.count > 10 else { fail("no access unit delimiters found: make the stream with h264_metadata=aud=insert") }
let accessUnits: [[UInt8]] = starts.indices.map { i in Array(stream[starts[i]..<(i + 1 < starts.count ? starts[i + 1] : stream.count)]) }
let totalBytes = accessUnits.reduce(0) { $0 + $1.count }

/// Best of `passes` timings of `body`, in bytes per second of `bytes`.
func measure(passes: Int = 15, bytes: Int, _ body: () throws -> Void) rethrows -> Double {
    var best = Double.infinity
    for _ in 0..<passes {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    return Double(bytes) / best
}

var output: [UInt8] = []
output.reserveCapacity(4 << 20)

// memcpy of every access unit into one reused buffer: the ceiling for any repackaging.
var scratch = [UInt8](repeating: 0, count: accessUnits.map(\.count).max() ?? 0)
let memcpyRate = measure(bytes: totalBytes) {
    scratch.withUnsafeMutableBytes { target in
        guard let destination = target.baseAddress else { return }
        for unit in accessUnits {
            unit.withUnsafeBytes { source in
                if let from = source.baseAddress { _ = memcpy(destination, from, source.count) }
            }
        }
    }
}

var samples: [[UInt8]] = []
var record: AVCDecoderConfigurationRecord?
do {
    var converter = AnnexBToAVCCConverter()
    for unit in accessUnits {
        output.removeAll(keepingCapacity: true)
        _ = try unit.withUnsafeBytes { try converter.convert($0, into: &output) }
        samples.append(output)
    }
    record = converter.record
} catch {
    fail("Annex B → AVCC failed: \(error)")
}
guard let record else { fail("no SPS/PPS in the stream") }

let toAVCC = try measure(bytes: totalBytes) {
    var converter = AnnexBToAVCCConverter()
    for unit in accessUnits {
        output.removeAll(keepingCapacity: true)
        _ = try unit.withUnsafeBytes { try converter.convert($0, into: &output) }
    }
}
let sampleBytes = samples.reduce(0) { $0 + $1.count }
let toAnnexB = try measure(bytes: sampleBytes) {
    var converter = try AVCCToAnnexBConverter(record: record)
    for sample in samples {
        output.removeAll(keepingCapacity: true)
        _ = try sample.withUnsafeBytes { try converter.convert($0, into: &output) }
    }
}

func rate(_ bytesPerSecond: Double) -> String {
    bytesPerSecond >= 1e9 ? "\(Double(Int(bytesPerSecond / 1e7)) / 100) GB/s" : "\(Int(bytesPerSecond / 1e6)) MB/s"
}
print("access units: \(accessUnits.count), \(totalBytes) bytes")
print("memcpy:            \(rate(memcpyRate))")
print("Annex B → AVCC:    \(rate(toAVCC))  (\(Int(toAVCC / memcpyRate * 100)) % of memcpy; goal ≥ 1 GB/s)")
print("AVCC → Annex B:    \(rate(toAnnexB))  (\(Int(toAnnexB / memcpyRate * 100)) % of memcpy; goal ≥ 50 %)")
