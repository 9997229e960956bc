@testable import MediaFormats

/// Byte fixtures for the AAC and FLV tests. Values marked "ffmpeg" were produced by the ffmpeg 5.1 CLI
/// (native `aac` encoder, `libx264`) and read back with xxd / ffprobe; the others are derived from the spec.
enum AACFixtures {
    /// Bytes from a hex string; spaces are ignored. Literal test input only: a typo is a programmer error.
    static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.filter { !$0.isWhitespace })
        precondition(digits.count % 2 == 0, "odd number of hex digits")
        return stride(from: 0, to: digits.count, by: 2).map { index in
            guard let byte = UInt8(String(digits[index...index + 1]), radix: 16) else {
                preconditionFailure("bad hex digits at \(index)")
            }
            return byte
        }
    }

    /// ffmpeg: the first ADTS header of `-f lavfi -i sine=sample_rate=44100 -ac 1 -c:a aac x.aac`
    /// (AAC LC, 44.1 kHz, mono, aac_frame_length 265, VBR).
    static let adtsLC44100Mono = bytes("fff15040213ffc")
    /// ffmpeg: the first ADTS header of a 48 kHz 5.1 encode (channel configuration 6, aac_frame_length 765).
    static let adtsLC48000Surround = bytes("fff14d805fbffc")
    /// ffmpeg: the third ADTS header of the 44.1 kHz mono file (aac_frame_length 153).
    static let adtsLC44100MonoShort = bytes("fff15040133ffc")
}
