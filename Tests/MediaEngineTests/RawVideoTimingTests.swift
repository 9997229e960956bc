import MediaFormats
import Testing
@testable import MediaEngine
@testable import MediaSinks

@Suite("RawVideoTiming")
struct RawVideoTimingTests {
    /// An Annex B SPS (Baseline, 16x16) whose VUI has only timing_info with these fields.
    static func spsWithTiming(numUnitsInTick: UInt32, timeScale: UInt32) -> [UInt8] {
        var writer = BitWriter()
        func ue(_ value: UInt32) {
            let code = UInt64(value) + 1
            let bits = 63 - code.leadingZeroBitCount
            writer.write(0, bits: bits)
            writer.write(UInt32(code), bits: bits + 1)
        }
        writer.write(66, bits: 8)
        writer.write(0, bits: 8)
        writer.write(30, bits: 8)
        for value: UInt32 in [0, 0, 2, 1] { ue(value) }  // sps id, log2_max_frame_num − 4, POC type 2, 1 ref
        writer.writeFlag(false)
        ue(0)
        ue(0)
        for flag in [true, true, false, true, false, false, false, false, true] { writer.writeFlag(flag) }  // … VUI, timing
        writer.write(numUnitsInTick, bits: 32)
        writer.write(timeScale, bits: 32)
        for flag in [true, false, false, false, false, true] { writer.writeFlag(flag) }  // fixed rate, no HRD/…, stop bit
        while writer.bitLength % 8 != 0 { writer.write(0, bits: 1) }
        // Emulation prevention (§7.4.1): 00 00 0x becomes 00 00 03 0x.
        var payload: [UInt8] = [0x67]
        var zeros = 0
        for byte in writer.bytes {
            if zeros >= 2 && byte <= 3 {
                payload.append(3)
                zeros = 0
            }
            payload.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        return [0, 0, 0, 1] + payload
    }

    @Test("a VUI frame rate is used only when plausible", arguments: [
        (UInt32(1001), UInt32(60000), Optional(60000.0 / 2002)),
        (1, 50, 25),
        (UInt32.max, 1, nil),
        (1, UInt32.max, nil),
        (0, 50, nil),
        (50, 0, nil),
    ] as [(UInt32, UInt32, Double?)])
    func vuiRate(_ units: UInt32, _ scale: UInt32, _ expected: Double?) throws {
        let sps = Self.spsWithTiming(numUnitsInTick: units, timeScale: scale)
        // The builder makes a valid SPS: it parses, whatever the timing says.
        _ = try #require(try MediaProbe.firstSPS(inAnnexB: sps))
        #expect(RawVideoTiming.frameRate(fromParameterSets: sps, firstAccessUnit: []) == expected)
    }

    @Test("absurd frame rates fall back to the default; frame times saturate")
    func extremes() {
        #expect(RawVideoTiming(frameRate: 0).frameRate == RawVideoTiming.defaultFrameRate)
        #expect(RawVideoTiming(frameRate: .nan).frameRate == RawVideoTiming.defaultFrameRate)
        #expect(RawVideoTiming(frameRate: -30).frameRate == RawVideoTiming.defaultFrameRate)
        #expect(RawVideoTiming(frameRate: .infinity).frameRate == RawVideoTiming.defaultFrameRate)
        let slow = RawVideoTiming(frameRate: 1e-300)
        #expect(slow.microseconds(.max) == .max)
        #expect(slow.microseconds(1) == .max)
        #expect(RawVideoTiming(frameRate: 25).microseconds(.max) == .max)
        #expect(RawVideoTiming(frameRate: 25).microseconds(3) == 120_000)
    }
}
