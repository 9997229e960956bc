// ITU-T H.264 (08/2021) §7.3.2.1.1.1 Scaling list syntax, §7.4.2.1.1.1 semantics.

/// scaling_list(): parsed so the fields after it are read from the right bit, then discarded
/// (repackaging never dequantises).
enum ScalingList {
    /// Reads one scaling_list of `size` (16 or 64) entries; delta_scale outside −128...127 throws `.invalid`.
    static func skip(_ reader: inout BitReader, size: Int) throws {
        var lastScale = 8
        var nextScale = 8
        for _ in 0..<size {
            if nextScale != 0 {
                let deltaScale = Int(try reader.readSE())
                guard (-128...127).contains(deltaScale) else {
                    throw MediaFormatError.invalid(structure: "scaling_list", reason: "delta_scale \(deltaScale) outside -128...127")
                }
                nextScale = (lastScale + deltaScale + 256) % 256
            }
            lastScale = nextScale == 0 ? lastScale : nextScale
        }
    }

    /// Reads `count` scaling_list_present_flag[i] entries and the lists they announce
    /// (lists 0...5 are 4x4, the rest 8x8), as both the SPS and the PPS lay them out.
    static func skipLists(_ reader: inout BitReader, count: Int) throws {
        for i in 0..<count where try reader.readFlag() {
            try skip(&reader, size: i < 6 ? 16 : 64)
        }
    }
}
