// Shared by every fuzz target (scripts/fuzz compiles it into each): turns libFuzzer's buffer into parts.

/// The bytes libFuzzer hands a target, and ways to cut them into several inputs for one parser.
struct FuzzInput {
    var bytes: [UInt8]

    init(_ data: UnsafePointer<UInt8>, _ size: Int) {
        bytes = Array(UnsafeBufferPointer(start: data, count: size))
    }

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// The first byte, used to choose a mode, and the rest; nil when the input is empty.
    var selectorAndRest: (selector: UInt8, rest: [UInt8])? {
        guard let first = bytes.first else { return nil }
        return (first, Array(bytes.dropFirst()))
    }

    /// Parts separated by the 4-byte marker "FUZZ" (so a corpus file can hold, say, a record and samples).
    var parts: [[UInt8]] {
        let marker: [UInt8] = Array("FUZZ".utf8)
        var result: [[UInt8]] = []
        var current: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if index + marker.count <= bytes.count, Array(bytes[index..<(index + marker.count)]) == marker {
                result.append(current)
                current = []
                index += marker.count
            } else {
                current.append(bytes[index])
                index += 1
            }
        }
        result.append(current)
        return result
    }
}
