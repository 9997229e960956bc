import SluiceTestSupport
import Testing
import MediaFormats

@Suite("AVCC length-prefixed NAL units (ISO/IEC 14496-15 §5.3.2)")
struct AVCCTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let sample: [UInt8]
        let lengthSize: Int
        let nalUnits: [[UInt8]]
        var testDescription: String { name }
    }

    static let valid: [Case] = [
        Case(name: "4-byte lengths", sample: [0, 0, 0, 2, 0x65, 0xAA, 0, 0, 0, 1, 0x06], lengthSize: 4, nalUnits: [[0x65, 0xAA], [0x06]]),
        Case(name: "2-byte lengths", sample: [0, 2, 0x65, 0xAA, 0, 1, 0x06], lengthSize: 2, nalUnits: [[0x65, 0xAA], [0x06]]),
        Case(name: "1-byte lengths", sample: [2, 0x65, 0xAA, 1, 0x06], lengthSize: 1, nalUnits: [[0x65, 0xAA], [0x06]]),
        Case(name: "zero-length NAL units skipped", sample: [0, 0, 0, 0, 0, 0, 0, 1, 0x41, 0, 0, 0, 0], lengthSize: 4, nalUnits: [[0x41]]),
        Case(name: "empty sample", sample: [], lengthSize: 4, nalUnits: []),
        Case(name: "NAL unit containing a start code", sample: [0, 0, 0, 4, 0, 0, 0, 1], lengthSize: 4, nalUnits: [[0, 0, 0, 1]]),
    ]

    @Test(arguments: valid)
    func findsNALUnits(_ c: Case) throws {
        #expect(try AVCC.nalUnits(in: c.sample, lengthSize: c.lengthSize).map(Array.init) == c.nalUnits)
        var written: [UInt8] = []
        try AVCC.write(nalUnits: c.nalUnits, lengthSize: c.lengthSize, into: &written)
        #expect(written == avcc(c.nalUnits, lengthSize: c.lengthSize))
    }

    struct Malformed: Sendable, CustomTestStringConvertible {
        let name: String
        let sample: [UInt8]
        let lengthSize: Int
        let error: MediaFormatError
        var testDescription: String { name }
    }

    static let malformed: [Malformed] = [
        Malformed(name: "length past the end", sample: [0, 0, 0, 5, 0x65, 0xAA], lengthSize: 4,
                  error: .truncated(needed: 5, available: 2)),
        Malformed(name: "partial length field", sample: [0, 0, 0, 1, 0x65, 0, 0], lengthSize: 4,
                  error: .truncated(needed: 4, available: 2)),
        Malformed(name: "1-byte length past the end", sample: [9, 1, 2], lengthSize: 1, error: .truncated(needed: 9, available: 2)),
        Malformed(name: "length size 3", sample: [0, 0, 1, 0x65], lengthSize: 3,
                  error: .invalid(structure: "AVCC", reason: "NAL unit length size 3 (must be 1, 2 or 4)")),
        Malformed(name: "length size 0", sample: [], lengthSize: 0,
                  error: .invalid(structure: "AVCC", reason: "NAL unit length size 0 (must be 1, 2 or 4)")),
    ]

    @Test(arguments: malformed)
    func rejectsMalformed(_ c: Malformed) {
        #expect(throws: c.error) { try AVCC.nalUnits(in: c.sample, lengthSize: c.lengthSize) }
    }

    @Test func visitsNALUnitsBeforeATruncatedOne() {
        var seen: [Range<Int>] = []
        let sample: [UInt8] = [0, 1, 0x41, 0, 9, 0x41]
        #expect(throws: MediaFormatError.truncated(needed: 9, available: 1)) {
            try sample.withUnsafeBytes { try AVCC.forEachNALUnit(in: $0, lengthSize: 2) { seen.append($0) } }
        }
        #expect(seen == [2..<3])
    }

    @Test func lengthTooLargeForLengthSize() {
        var output: [UInt8] = []
        #expect(throws: MediaFormatError.limitExceeded(what: "NAL unit length", value: 256, limit: 255)) {
            try AVCC.append(nalUnit: [UInt8](repeating: 1, count: 256), lengthSize: 1, into: &output)
        }
        #expect(throws: MediaFormatError.limitExceeded(what: "NAL unit length", value: 65536, limit: 65535)) {
            try AVCC.append(nalUnit: [UInt8](repeating: 1, count: 65536), lengthSize: 2, into: &output)
        }
        #expect(output.isEmpty)
    }

    @Test func randomSamplesNeverCrash() {
        var generator = SeededGenerator(seed: 14496)
        var parsed = 0
        for _ in 0..<2000 {
            let sample = generator.bytes(Int.random(in: 0...64, using: &generator))
            for lengthSize in [1, 2, 4] {
                if let units = try? AVCC.nalUnits(in: sample, lengthSize: lengthSize) {
                    parsed += 1
                    #expect(units.allSatisfy { !$0.isEmpty })
                }
            }
        }
        #expect(parsed > 0)
    }
}
