import SluiceTestSupport
import Testing
import MediaFormats

@Suite("Annex B byte stream scanning")
struct AnnexBTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let stream: [UInt8]
        let nalUnits: [[UInt8]]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "4-byte start codes", stream: [0, 0, 0, 1, 0x67, 0xAA, 0, 0, 0, 1, 0x68, 0xBB], nalUnits: [[0x67, 0xAA], [0x68, 0xBB]]),
        Case(name: "3-byte start codes", stream: [0, 0, 1, 0x67, 0xAA, 0, 0, 1, 0x68, 0xBB], nalUnits: [[0x67, 0xAA], [0x68, 0xBB]]),
        Case(name: "mixed start codes", stream: [0, 0, 0, 1, 0x09, 0xF0, 0, 0, 1, 0x65, 1, 2, 3, 0, 0, 0, 1, 0x41, 9],
             nalUnits: [[0x09, 0xF0], [0x65, 1, 2, 3], [0x41, 9]]),
        Case(name: "trailing zeros belong to the next start code", stream: [0, 0, 1, 0x67, 0xAA, 0, 0, 0, 0, 0, 0, 1, 0x68, 0, 0],
             nalUnits: [[0x67, 0xAA], [0x68]]),
        Case(name: "zero-length NAL units skipped", stream: [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0x68, 0xBB, 0, 0, 1],
             nalUnits: [[0x68, 0xBB]]),
        Case(name: "garbage before the first start code ignored", stream: [0xFF, 0x12, 0x00, 0x01, 0, 0, 1, 0x65, 0x88],
             nalUnits: [[0x65, 0x88]]),
        Case(name: "no start code", stream: [0x65, 0x88, 0x84, 0, 0, 2], nalUnits: []),
        Case(name: "empty", stream: [], nalUnits: []),
        Case(name: "start code only", stream: [0, 0, 0, 1], nalUnits: []),
        Case(name: "emulation prevention is not a start code", stream: [0, 0, 1, 0x65, 0, 0, 3, 1, 0, 0, 3, 0, 0xAB],
             nalUnits: [[0x65, 0, 0, 3, 1, 0, 0, 3, 0, 0xAB]]),
        // Regression guard for the word-at-a-time scan: start codes straddling 8-byte word boundaries.
        Case(name: "start codes at every offset of a word",
             stream: [0, 0, 1, 0x41, 1, 2, 3, 4, 5, 6, 7, 0, 0, 1, 0x41, 0xEE, 0, 0, 1, 0x41, 1, 2, 3, 4, 5, 6, 0, 0, 1, 0x41],
             nalUnits: [[0x41, 1, 2, 3, 4, 5, 6, 7], [0x41, 0xEE], [0x41, 1, 2, 3, 4, 5, 6], [0x41]]),
    ]

    @Test(arguments: cases)
    func findsNALUnits(_ c: Case) {
        let found = AnnexB.nalUnits(in: c.stream).map(Array.init)
        #expect(found == c.nalUnits)
        let viaVisitor = c.stream.withUnsafeBytes { buffer in
            var units: [[UInt8]] = []
            AnnexB.forEachNALUnit(in: buffer) { units.append(Array(buffer[$0])) }
            return units
        }
        #expect(viaVisitor == c.nalUnits)
    }

    @Test func detectsStartCodes() {
        #expect(AnnexB.hasStartCode([0, 0, 0, 1, 0x67]))
        #expect(AnnexB.hasStartCode([0, 0, 1, 0x67]))
        #expect(!AnnexB.hasStartCode([1, 0x64, 0, 0x1F]))  // an avcC record
        #expect(!AnnexB.hasStartCode([0, 0, 0, 0x1C, 0x65]))  // an AVCC sample with a 28-byte NAL unit
        #expect(!AnnexB.hasStartCode([0, 0]))
        #expect(!AnnexB.hasStartCode([UInt8]()))
        #expect(([0, 0, 1, 9] as [UInt8]).withUnsafeBytes { AnnexB.hasStartCode($0) })
    }

    @Test func writeThenScanRoundTrips() {
        let nalUnits: [[UInt8]] = [H264Fixtures.high.sps, H264Fixtures.high.pps, H264Fixtures.high.idrSlice]
        var stream: [UInt8] = []
        AnnexB.write(nalUnits: nalUnits + [[]], into: &stream)
        #expect(stream.count == nalUnits.reduce(0) { $0 + $1.count + 4 })
        #expect(AnnexB.nalUnits(in: stream).map(Array.init) == nalUnits)
    }

    /// The scanner against a plain byte-by-byte reference on random streams with planted start codes.
    @Test func matchesReferenceScannerOnRandomStreams() {
        var generator = SeededGenerator(seed: 0x264)
        for _ in 0..<2000 {
            var stream = generator.bytes(Int.random(in: 0...96, using: &generator))
            for _ in 0..<Int.random(in: 0...4, using: &generator) where !stream.isEmpty {
                let at = Int.random(in: 0..<stream.count, using: &generator)
                stream.insert(contentsOf: Bool.random(using: &generator) ? [0, 0, 1] : [0, 0, 0, 1], at: at)
            }
            // Zero runs make start-code-like patterns likely.
            for index in stream.indices where stream[index] < 0x30 { stream[index] = stream[index] % 3 == 0 ? 0 : stream[index] }
            #expect(AnnexB.nalUnitRanges(in: stream) == referenceRanges(stream))
        }
    }

    /// Straightforward scan: every 00 00 01, NAL units end at the next one, trailing zeros trimmed, empties dropped.
    private func referenceRanges(_ bytes: [UInt8]) -> [Range<Int>] {
        var starts: [Int] = []
        var i = 0
        while i + 2 < bytes.count {
            if bytes[i] == 0 && bytes[i + 1] == 0 && bytes[i + 2] == 1 {
                starts.append(i)
                i += 3
            } else {
                i += 1
            }
        }
        var ranges: [Range<Int>] = []
        for (k, start) in starts.enumerated() {
            var end = k + 1 < starts.count ? starts[k + 1] : bytes.count
            while end > start + 3 && bytes[end - 1] == 0 { end -= 1 }
            if end > start + 3 { ranges.append((start + 3)..<end) }
        }
        return ranges
    }
}
