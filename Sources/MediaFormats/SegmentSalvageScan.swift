// ISO/IEC 14496-12 (2022) §4.2 (box structure) and §8.8 (movie fragments); ISO/IEC 13818-1 (2019) §2.4.3.2 (the
// 188-byte transport packet): where a recording cut short by a kill can be truncated and still play.

/// How much of a segment cut short (a worker killed while writing it) to keep so that it plays: the scan reads only
/// what it needs through `read(offset, count)` (box headers, packet sync bytes), so a segment of gigabytes is never
/// held in memory.
public enum SegmentSalvageScan {
    /// Reads up to `count` bytes at `offset` (fewer at the end of the file).
    public typealias Read = (_ offset: Int64, _ count: Int) -> [UInt8]

    /// Fragmented MP4: the length up to the end of the last whole `moof` + `mdat` pair after a whole init segment
    /// (`ftyp`, `moov`; `styp`, `sidx` and other top-level boxes are kept when whole). Nil when not one whole
    /// fragment is there: nothing to play.
    public static func mp4Length(size: Int64, read: Read) -> Int64? {
        var offset: Int64 = 0
        var sawMovie = false
        var openFragment = false
        var keep: Int64?
        while offset < size {
            var reader = ByteReader(read(offset, MP4BoxHeader.largeSize + MP4BoxHeader.userTypeSize))
            guard let header = try? MP4BoxHeader(parsing: &reader), let boxSize = header.boxSize,
                  boxSize <= UInt64(Int64.max - offset), offset + Int64(boxSize) <= size
            else { break }
            offset += Int64(boxSize)
            switch header.type {
            case "moov": sawMovie = true
            case "moof":
                guard sawMovie else { return nil }
                openFragment = true
            case "mdat":
                // A fragment is whole once the media its `moof` points into is.
                if openFragment, sawMovie { keep = offset }
                openFragment = false
            default:
                break
            }
        }
        return keep
    }

    /// Bytes read at a time while checking packets' sync bytes.
    static let tsChunk = TSPacketHeader.packetSize * 5_000

    /// MPEG-TS: the length of the whole 188-byte packets from the start, up to the first one whose sync byte is wrong.
    /// Nil when fewer than three are whole (a PAT, a PMT and one packet of media at the least).
    public static func tsLength(size: Int64, read: Read) -> Int64? {
        let packet = Int64(TSPacketHeader.packetSize)
        let whole = size / packet * packet
        var offset: Int64 = 0
        scan: while offset < whole {
            let bytes = read(offset, Int(min(Int64(tsChunk), whole - offset)))
            guard !bytes.isEmpty else { break }
            var index = 0
            while index + TSPacketHeader.packetSize <= bytes.count {
                guard bytes[index] == TSPacketHeader.syncByte else {
                    offset += Int64(index)
                    break scan
                }
                index += TSPacketHeader.packetSize
            }
            offset += Int64(index)
            if index < bytes.count { break }
        }
        return offset >= 3 * packet ? offset : nil
    }
}
