import Testing
@testable import MediaFormats

@Suite("SegmentSalvageScan: what of a segment cut short by a kill still plays")
struct SegmentSalvageScanTests {
    static func box(_ type: String, payload: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        MP4BoxHeader(type: MP4FourCC(stringLiteral: type), payloadSize: payload).write(into: &bytes)
        return bytes + [UInt8](repeating: 0xAB, count: payload)
    }

    /// ftyp, moov, then two fragments; the offsets where each fragment ends.
    static let mp4: (bytes: [UInt8], fragmentEnds: [Int]) = {
        var bytes = box("ftyp", payload: 16) + box("moov", payload: 300)
        var ends: [Int] = []
        for payload in [1_000, 700] {
            bytes += box("moof", payload: 90) + box("mdat", payload: payload)
            ends.append(bytes.count)
        }
        return (bytes, ends)
    }()

    static func scan(_ bytes: [UInt8], _ scan: (Int64, SegmentSalvageScan.Read) -> Int64?) -> Int64? {
        scan(Int64(bytes.count)) { offset, count in
            let start = min(Int(offset), bytes.count)
            return Array(bytes[start..<min(bytes.count, start + count)])
        }
    }

    @Test("MP4 cut at every byte keeps the last whole moof + mdat, and nothing before the first")
    func mp4EveryByte() {
        let (bytes, ends) = Self.mp4
        for length in 0...bytes.count {
            let expected = ends.last { $0 <= length }.map(Int64.init)
            #expect(Self.scan(Array(bytes.prefix(length)), SegmentSalvageScan.mp4Length) == expected, "cut at \(length)")
        }
    }

    @Test("MP4: a moof before any moov, or a moof without its mdat, is not kept")
    func mp4Malformed() {
        let fragmentFirst = Self.box("ftyp", payload: 8) + Self.box("moof", payload: 10) + Self.box("mdat", payload: 10)
        #expect(Self.scan(fragmentFirst, SegmentSalvageScan.mp4Length) == nil)
        let (bytes, ends) = Self.mp4
        #expect(Self.scan(bytes + Self.box("moof", payload: 10), SegmentSalvageScan.mp4Length) == Int64(ends[1]))
        var garbage = bytes
        garbage += [0, 0, 0, 3, 0x6D, 0x6F, 0x6F, 0x66]
        #expect(Self.scan(garbage, SegmentSalvageScan.mp4Length) == Int64(ends[1]))
    }

    static func tsPacket(_ index: Int) -> [UInt8] {
        [TSPacketHeader.syncByte] + [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: TSPacketHeader.packetSize - 1)
    }

    @Test("MPEG-TS cut at every byte keeps the whole 188-byte packets, at least three")
    func tsEveryByte() {
        let bytes = (0..<6).flatMap(Self.tsPacket)
        for length in 0...bytes.count {
            let whole = length / TSPacketHeader.packetSize * TSPacketHeader.packetSize
            let expected = whole >= 3 * TSPacketHeader.packetSize ? Int64(whole) : nil
            #expect(Self.scan(Array(bytes.prefix(length)), SegmentSalvageScan.tsLength) == expected, "cut at \(length)")
        }
    }

    @Test("MPEG-TS stops at the first packet without its sync byte, also across read chunks")
    func tsLostSync() {
        var bytes = (0..<5).flatMap(Self.tsPacket)
        bytes[4 * TSPacketHeader.packetSize] = 0
        #expect(Self.scan(bytes, SegmentSalvageScan.tsLength) == Int64(4 * TSPacketHeader.packetSize))
        let packets = SegmentSalvageScan.tsChunk / TSPacketHeader.packetSize + 3
        var long = (0..<packets).flatMap(Self.tsPacket)
        long[(packets - 2) * TSPacketHeader.packetSize] = 0x48
        #expect(Self.scan(long, SegmentSalvageScan.tsLength) == Int64((packets - 2) * TSPacketHeader.packetSize))
    }
}
