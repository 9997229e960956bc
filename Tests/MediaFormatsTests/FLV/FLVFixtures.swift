@testable import MediaFormats

/// FLV fixtures taken from real files (see `AACFixtures` for how they were made).
enum FLVFixtures {
    /// ffmpeg: the first 409 bytes of `ffmpeg -f lavfi -i testsrc2 -f lavfi -i sine=sample_rate=44100 -t 1
    /// -c:v libx264 -c:a aac x.flv`: header, PreviousTagSize0, onMetaData (offset 13), the AVC sequence header
    /// (offset 321) and the AAC sequence header (offset 387), each with its PreviousTagSize.
    static let ffmpegPrefix = AACFixtures.bytes("""
        464c5601050000000900000000120001250000000000000002000a6f6e4d65746144617461080000000d000864757261
        74696f6e003ff147ae147ae14800057769647468004074000000000000000668656967687400406e000000000000000d
        766964656f646174617261746500000000000000000000096672616d6572617465004039000000000000000c76696465
        6f636f646563696400401c000000000000000d617564696f6461746172617465004050d88000000000000f617564696f
        73616d706c65726174650040e5888000000000000f617564696f73616d706c6573697a65004030000000000000000673
        746572656f0100000c617564696f636f64656369640040240000000000000007656e636f64657202000d4c6176663539
        2e32372e313030000866696c6573697a650040e6c5400000000000000900000130090000330000000000000017000000
        000164000dffe100196764000dacd94141fb011000000300100000030320f142996001000668ebe3cb22c0fdf8f80000
        00003e0800000700000000000000af00120856e50000000012
        """)

    /// The onMetaData ffmpeg wrote into `ffmpegPrefix`.
    static let ffmpegMetadata = FLVMetadata(
        duration: 1.08, width: 320, height: 240, videodatarate: 0, framerate: 25, videocodecid: 7,
        audiodatarate: 67.3828125, audiosamplerate: 44100, audiosamplesize: 16, stereo: false, audiocodecid: 10,
        encoder: "Lavf59.27.100", filesize: 46634)

    /// The avcC payload of the AVC sequence header in `ffmpegPrefix` (opaque to FLV).
    static let ffmpegAVCDecoderConfiguration = Array(ffmpegPrefix[(321 + 11 + 5)..<(321 + 11 + 51)])

    /// The AudioSpecificConfig of the AAC sequence header in `ffmpegPrefix`: LC, 44.1 kHz, mono, with the
    /// backward-compatible "no SBR" sync extension FFmpeg appends.
    static let ffmpegAudioSpecificConfig = AACFixtures.bytes("120856e500")

    /// ffmpeg (`-output_ts_offset 16777.2`): an audio tag header whose timestamp 16777223 ms uses
    /// TimestampExtended (00 00 07 | 01).
    static let ffmpegExtendedTimestampTagHeader = AACFixtures.bytes("0800009400000701000000")
}
