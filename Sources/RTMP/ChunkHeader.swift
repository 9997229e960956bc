// RTMP specification 1.0, §5.3.1: chunk basic header (1–3 bytes) and chunk message header types 0–3.

/// Constants of the chunk format.
enum ChunkFormat {
    /// Chunk size before any Set Chunk Size (§5.4.1).
    static let defaultChunkSize = 128
    /// Chunk stream IDs 2–63 fit the 1-byte basic header; 64–319 the 2-byte form; up to 65599 the 3-byte form.
    static let oneByteMaxID: UInt32 = 63
    static let twoByteMaxID: UInt32 = 319
    static let largestID: UInt32 = 65_599
    /// A timestamp field of 0xFFFFFF means the value is in the 4-byte extended timestamp (§5.3.1.3).
    static let extendedTimestampMarker: UInt32 = 0xFF_FFFF
    /// Longest chunk header: 3-byte basic header, 11-byte type 0 message header, 4-byte extended timestamp.
    static let maxHeaderLength = 3 + 11 + 4

    /// Bytes of the chunk message header of `type` (fmt) 0, 1, 2, 3.
    @inline(__always)
    static func messageHeaderLength(type: UInt8) -> Int {
        switch type {
        case 0: return 11
        case 1: return 7
        case 2: return 3
        default: return 0
        }
    }

    /// Appends a chunk basic header: 2 bits fmt, then the chunk stream ID in the 1-, 2- or 3-byte form.
    @inline(__always)
    static func appendBasicHeader(type: UInt8, chunkStreamID: UInt32, into out: inout [UInt8]) {
        if chunkStreamID <= oneByteMaxID {
            out.append(type << 6 | UInt8(truncatingIfNeeded: chunkStreamID))
        } else if chunkStreamID <= twoByteMaxID {
            out.append(type << 6)
            out.append(UInt8(truncatingIfNeeded: chunkStreamID - 64))
        } else {
            // 3-byte form: (ID - 64) little-endian in the second and third bytes.
            let value = chunkStreamID - 64
            out.append(type << 6 | 1)
            out.append(UInt8(truncatingIfNeeded: value))
            out.append(UInt8(truncatingIfNeeded: value >> 8))
        }
    }
}
