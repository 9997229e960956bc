import SluiceTestSupport
import Testing
@testable import MediaFormats

/// One row drives decoding, encoding, truncation and the fuzz seed corpus.
struct AMF0Case: Sendable, CustomTestStringConvertible {
    let name: String
    let value: AMF0Value
    let bytes: [UInt8]
    var testDescription: String { name }

    static let valid: [AMF0Case] = [
        .init(name: "number 1.0", value: .number(1), bytes: AACFixtures.bytes("00 3ff0000000000000")),
        .init(name: "number -0.5", value: .number(-0.5), bytes: AACFixtures.bytes("00 bfe0000000000000")),
        .init(name: "boolean true", value: .boolean(true), bytes: [0x01, 0x01]),
        .init(name: "boolean false", value: .boolean(false), bytes: [0x01, 0x00]),
        .init(name: "string", value: .string("abc"), bytes: AACFixtures.bytes("02 0003 616263")),
        .init(name: "empty string", value: .string(""), bytes: [0x02, 0x00, 0x00]),
        .init(name: "UTF-8 string", value: .string("é"), bytes: AACFixtures.bytes("02 0002 c3a9")),
        .init(name: "null", value: .null, bytes: [0x05]),
        .init(name: "undefined", value: .undefined, bytes: [0x06]),
        .init(name: "object", value: .object([AMF0Property("a", .number(1))]),
              bytes: AACFixtures.bytes("03 0001 61 00 3ff0000000000000 000009")),
        .init(name: "empty object", value: .object([]), bytes: AACFixtures.bytes("03 000009")),
        .init(name: "ECMA array", value: .ecmaArray([AMF0Property("x", .boolean(true))]),
              bytes: AACFixtures.bytes("08 00000001 0001 78 0101 000009")),
        .init(name: "strict array", value: .strictArray([.null, .string("a")]),
              bytes: AACFixtures.bytes("0a 00000002 05 02000161")),
        .init(name: "date", value: .date(milliseconds: 1.0, timeZone: 0),
              bytes: AACFixtures.bytes("0b 3ff0000000000000 0000")),
        .init(name: "long string", value: .longString("hi"), bytes: AACFixtures.bytes("0c 00000002 6869")),
        .init(name: "nested objects keep property order",
              value: .object([
                  AMF0Property("z", .ecmaArray([AMF0Property("k", .strictArray([.object([])]))])),
                  AMF0Property("a", .string("v")),
              ]),
              bytes: AACFixtures.bytes("03 0001 7a 08 00000001 0001 6b 0a 00000001 03 000009 000009 0001 61 020001 76 000009")),
    ]

    static let malformed: [(name: String, bytes: [UInt8], error: MediaFormatError)] = [
        ("empty", [], .truncated(needed: 1, available: 0)),
        ("string longer than the data", AACFixtures.bytes("02 0005 6162"), .truncated(needed: 5, available: 2)),
        ("number cut short", AACFixtures.bytes("00 3ff0"), .truncated(needed: 8, available: 2)),
        ("object without its end", AACFixtures.bytes("03 0001 61 05"), .truncated(needed: 2, available: 0)),
        ("reference marker", [0x07, 0x00, 0x01],
         .unsupported(structure: "AMF0 value", reason: "type marker 0x7")),
        ("AMF3 switch", [0x11], .unsupported(structure: "AMF0 value", reason: "type marker 0x11")),
        ("object end outside an object", [0x09],
         .invalid(structure: "AMF0 value", reason: "object-end marker outside an object")),
        ("strict array count beyond the data", AACFixtures.bytes("0a ffffffff 05"),
         .truncated(needed: 0xFFFF_FFFF, available: 1)),
        ("long string over the limit", AACFixtures.bytes("0c 01000000"),
         .limitExceeded(what: "AMF0 long string length", value: 0x100_0000, limit: 0xFF_FFFF)),
    ]
}

@Suite struct AMF0Tests {
    @Test(arguments: AMF0Case.valid)
    func decodes(_ row: AMF0Case) throws {
        #expect(try AMF0Value(parsing: row.bytes) == row.value)
    }

    @Test(arguments: AMF0Case.valid)
    func encodes(_ row: AMF0Case) throws {
        var out: [UInt8] = []
        try row.value.write(into: &out)
        #expect(out == row.bytes)
    }

    @Test(arguments: AMF0Case.malformed.indices)
    func refusesMalformed(_ index: Int) {
        let row = AMF0Case.malformed[index]
        #expect(throws: row.error, "\(row.name)") { try AMF0Value(parsing: row.bytes) }
    }

    @Test func trailingBytesAfterAWholeValueAreAnError() {
        #expect(throws: MediaFormatError.invalid(structure: "AMF0 value", reason: "1 bytes after the value")) {
            try AMF0Value(parsing: [0x05, 0x05])
        }
    }

    @Test func ecmaArrayWithoutEndMarkerAtTheEndOfDataIsAccepted() throws {
        // Some muxers stop after `count` properties; FFmpeg reads these.
        let value = try AMF0Value(parsing: AACFixtures.bytes("08 00000001 0001 78 0101"))
        #expect(value == .ecmaArray([AMF0Property("x", .boolean(true))]))
    }

    @Test func accessors() throws {
        let value = FLVFixtures.ffmpegMetadata.amf0Value
        #expect(value["width"]?.numberValue == 320)
        #expect(value["encoder"]?.stringValue == "Lavf59.27.100")
        #expect(value["stereo"]?.booleanValue == false)
        #expect(value["missing"] == nil)
        #expect(AMF0Value.number(1)["width"] == nil)
        #expect(AMF0Value.longString("x").stringValue == "x")
    }

    /// `depth` objects nested inside each other, each holding the next under key "n".
    private func nested(_ depth: Int) -> AMF0Value {
        var value = AMF0Value.null
        for _ in 0..<depth { value = .object([AMF0Property("n", value)]) }
        return value
    }

    @Test func nestingUpToTheLimitRoundTrips() throws {
        let value = nested(AMF0Limits.maxDepth)
        var out: [UInt8] = []
        try value.write(into: &out)
        #expect(try AMF0Value(parsing: out) == value)
    }

    @Test func nestingPastTheLimitIsRefusedBothWays() throws {
        let tooDeep = nested(AMF0Limits.maxDepth + 1)
        var out: [UInt8] = []
        #expect(throws: MediaFormatError.limitExceeded(what: "AMF0 nesting depth", value: 33, limit: 32)) {
            try tooDeep.write(into: &out)
        }
        // Hand-built wire form of 100,000 nested objects: refused without exhausting the stack.
        var wire: [UInt8] = []
        for _ in 0..<100_000 { wire += [AMF0Marker.object, 0x00, 0x01, 0x6E] }
        #expect(throws: MediaFormatError.limitExceeded(what: "AMF0 nesting depth", value: 33, limit: 32)) {
            try AMF0Value(parsing: wire)
        }
        let strictArrays: [UInt8] = (0..<40).flatMap { _ in [AMF0Marker.strictArray, 0, 0, 0, 1] }
        #expect(throws: MediaFormatError.limitExceeded(what: "AMF0 nesting depth", value: 33, limit: 32)) {
            try AMF0Value(parsing: strictArrays)
        }
    }

    @Test func stringLengthLimits() throws {
        let longest = String(repeating: "a", count: AMF0Limits.maxStringLength)
        var out: [UInt8] = []
        try AMF0Value.string(longest).write(into: &out)
        #expect(out.count == 3 + 0xFFFF)
        #expect(try AMF0Value(parsing: out) == .string(longest))
        let tooLong = longest + "a"
        out = []
        #expect(throws: MediaFormatError.limitExceeded(what: "AMF0 string length", value: 65536, limit: 65535)) {
            try AMF0Value.string(tooLong).write(into: &out)
        }
        #expect(throws: MediaFormatError.limitExceeded(what: "AMF0 string length", value: 65536, limit: 65535)) {
            try AMF0Value.object([AMF0Property(tooLong, .null)]).write(into: &out)
        }
        out = []
        try AMF0Value.longString(tooLong).write(into: &out)
        #expect(try AMF0Value(parsing: out) == .longString(tooLong))
    }

    @Test func decodesFFmpegOnMetaData() throws {
        // The script tag data of the ffmpeg fixture: offset 13 + 11, 293 bytes.
        let data = Array(FLVFixtures.ffmpegPrefix[24..<(24 + 293)])
        var reader = ByteReader(data)
        #expect(try AMF0Value(parsing: &reader) == .string("onMetaData"))
        let value = try AMF0Value(parsing: &reader)
        #expect(reader.isAtEnd)
        #expect(value == FLVFixtures.ffmpegMetadata.amf0Value)
        var out: [UInt8] = []
        try value.write(into: &out)
        #expect(out == Array(data[13...]))
    }

    @Test(arguments: AMF0Case.valid)
    func truncationAtEveryOffsetThrows(_ row: AMF0Case) {
        for length in 0..<row.bytes.count {
            do {
                let value = try AMF0Value(parsing: Array(row.bytes.prefix(length)))
                // Only an ECMA array cut exactly before its end marker may parse (the lenient case above).
                #expect(value == row.value && length == row.bytes.count - 3, "length \(length) parsed")
                guard case .ecmaArray = value else {
                    Issue.record("length \(length) of \(row.name) parsed as \(value)")
                    continue
                }
            } catch {
                #expect(error is MediaFormatError)
            }
        }
    }

    @Test func seededRandomInputsNeverCrashAndRoundTrip() {
        var generator = SeededGenerator(seed: 0xA3F0)
        var decodedCount = 0
        let markers: [UInt8] = [0x00, 0x01, 0x02, 0x03, 0x05, 0x06, 0x08, 0x0A, 0x0B, 0x0C]
        for _ in 0..<2000 {
            var input = generator.bytes(Int.random(in: 0...48, using: &generator))
            // Small lengths and real markers make it past the first byte often enough to matter.
            for index in input.indices where index % 3 == 0 {
                input[index] = markers[Int(input[index]) % markers.count]
            }
            for index in input.indices where index % 3 == 1 { input[index] = 0 }
            var reader = ByteReader(input)
            do {
                let value = try AMF0Value(parsing: &reader)
                decodedCount += 1
                var out: [UInt8] = []
                try value.write(into: &out)
                #expect(try AMF0Value(parsing: out) == value || value.containsNaN)
            } catch {
                #expect(error is MediaFormatError)
            }
        }
        #expect(decodedCount > 200)
    }
}

extension AMF0Value {
    /// NaN is not equal to itself, so round-trip checks skip values holding one.
    fileprivate var containsNaN: Bool {
        switch self {
        case let .number(value), let .date(value, _): return value.isNaN
        case let .object(properties), let .ecmaArray(properties): return properties.contains { $0.value.containsNaN }
        case let .strictArray(values): return values.contains { $0.containsNaN }
        default: return false
        }
    }
}
