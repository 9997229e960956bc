// ISO/IEC 13818-1 (2019) §2.4.3.2: every packet starts with sync_byte 0x47; a byte of that value also occurs inside
// packets, so sync is (re)gained only where the next packet's sync byte follows 188 bytes later.

/// Cuts a byte stream fed in pieces of any size into 188-byte packets, skipping garbage between them.
///
/// Decisions depend only on the bytes, never on how they were split: an unconfirmed candidate waits for the byte 188
/// further on (or for `atEnd`), so feeding byte by byte gives the same packets and skip counts as feeding at once.
struct TSPacketSynchronizer: Sendable {
    /// Consumed bytes are dropped from the front of the buffer once this many have piled up.
    static let compactionThreshold = 64 * TSPacketHeader.packetSize

    private var buffer: [UInt8] = []
    private var index = 0
    /// The last packet was taken in sync, so the next one is trusted if it starts with 0x47.
    private(set) var isLocked = false

    /// Adds bytes to scan.
    mutating func append(_ bytes: some Sequence<UInt8>) {
        if index >= Self.compactionThreshold {
            buffer.removeFirst(index)
            index = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next packet and the garbage bytes skipped before it; nil when more bytes are needed. With `atEnd`, a last
    /// candidate is taken without confirmation.
    mutating func nextPacket(atEnd: Bool, skipped: inout Int) -> ArraySlice<UInt8>? {
        let size = TSPacketHeader.packetSize
        while buffer.count - index >= size {
            if buffer[index] == TSPacketHeader.syncByte {
                let confirmed: Bool?
                if isLocked { confirmed = true }
                else if buffer.count - index > size { confirmed = buffer[index + size] == TSPacketHeader.syncByte }
                else { confirmed = atEnd ? true : nil }
                guard let confirmed else { return nil }
                if confirmed {
                    isLocked = true
                    defer { index += size }
                    return buffer[index..<(index + size)]
                }
            }
            isLocked = false
            index += 1
            skipped += 1
        }
        return nil
    }

    /// Drops what is left (less than a packet at the end of the stream) and returns how many bytes that was.
    mutating func discardRemainder() -> Int {
        defer {
            buffer = []
            index = 0
            isLocked = false
        }
        return buffer.count - index
    }
}
