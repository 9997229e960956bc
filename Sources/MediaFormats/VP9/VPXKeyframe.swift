// VP9 Bitstream & Decoding Process Specification v0.6 §6.2 (uncompressed_header up to frame_size, color_config) and
// RFC 6386 §9.1 (VP8's frame tag and key frame start code): what a relay needs of a key frame to write the stream's
// VPCodecConfigurationRecord (VP Codec ISO Media File Format Binding §2.2).

/// What a VP8 or VP9 key frame says of its stream.
public struct VPXKeyframe: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// The stream's vpcC (level 0: not signalled in the bitstream).
    public var record: VPCodecConfigurationRecord

    /// VP9's frame_sync_code.
    static let vp9SyncCode: UInt32 = 0x49_83_42
    /// VP8's key frame start code.
    static let vp8StartCode: [UInt8] = [0x9D, 0x01, 0x2A]

    /// Whether a VP9 frame (its first byte: frame_marker, profile, show_existing_frame, frame_type) is a key frame.
    public static func isVP9Keyframe(firstByte byte: UInt8) -> Bool {
        guard byte >> 6 == 2 else { return false }
        let profile = (byte >> 5) & 1 | ((byte >> 4) & 1) << 1
        // Profile 3 has a reserved bit before show_existing_frame.
        let shift: UInt8 = profile == 3 ? 1 : 0
        let showExisting = (byte >> (3 - shift)) & 1
        let frameType = (byte >> (2 - shift)) & 1
        return showExisting == 0 && frameType == 0
    }

    /// Whether a VP8 frame (its frame tag's first byte) is a key frame (P, bit 0, clear).
    public static func isVP8Keyframe(firstByte byte: UInt8) -> Bool { byte & 1 == 0 }

    /// A VP9 key frame's uncompressed header; nil when the frame is not a key frame (or shows an earlier one).
    public init?(vp9 frame: ArraySlice<UInt8>) throws {
        var r = BitReader(frame.prefix(16))
        guard try r.readBits(2) == 2 else {
            throw MediaFormatError.invalid(structure: "VP9 uncompressed header", reason: "no frame_marker")
        }
        let low = try r.readBits(1), high = try r.readBits(1)
        let profile = UInt8(high << 1 | low)
        if profile == 3 { _ = try r.readBits(1) }
        guard try !r.readFlag() else { return nil }  // show_existing_frame
        guard try r.readBits(1) == 0 else { return nil }  // frame_type: KEY_FRAME is 0
        _ = try r.readBits(2)  // show_frame, error_resilient_mode
        guard try r.readBits(24) == Self.vp9SyncCode else {
            throw MediaFormatError.invalid(structure: "VP9 uncompressed header", reason: "a key frame without its frame_sync_code")
        }
        let bitDepth: UInt8 = profile >= 2 ? (try r.readFlag() ? 12 : 10) : 8
        let colorSpace = try r.readBits(3)
        var fullRange = true
        var subsampling: (x: Bool, y: Bool) = (false, false)
        if colorSpace != 7 {  // not CS_RGB
            fullRange = try r.readFlag()
            if profile == 1 || profile == 3 {
                subsampling = (try r.readFlag(), try r.readFlag())
                _ = try r.readBits(1)
            } else {
                subsampling = (true, true)
            }
        } else if profile == 1 || profile == 3 {
            _ = try r.readBits(1)
        }
        width = Int(try r.readBits(16)) + 1
        height = Int(try r.readBits(16)) + 1
        // vpcC: 0 4:2:0 (chroma sited vertically between luma), 2 4:2:2, 3 4:4:4; 4:4:0 has no code and is written 4:4:4.
        let chroma: UInt8 = subsampling.x ? (subsampling.y ? 0 : 2) : 3
        // CS_BT_709 (2) names BT.709 primaries, transfer and matrix; the others are left unspecified (2).
        let code: UInt8 = colorSpace == 2 ? 1 : 2
        record = VPCodecConfigurationRecord(profile: profile, level: 0, bitDepth: bitDepth, chromaSubsampling: chroma, videoFullRange: fullRange,
                                            colourPrimaries: code, transferCharacteristics: code, matrixCoefficients: colorSpace == 7 ? 0 : code)
    }

    /// A VP8 key frame's frame tag and header; nil when the frame is an inter frame.
    public init?(vp8 frame: ArraySlice<UInt8>) throws {
        let bytes = Array(frame.prefix(10))
        guard let first = bytes.first else {
            throw MediaFormatError.truncated(needed: 1, available: 0)
        }
        guard Self.isVP8Keyframe(firstByte: first) else { return nil }
        guard bytes.count == 10 else { throw MediaFormatError.truncated(needed: 10, available: bytes.count) }
        guard Array(bytes[3..<6]) == Self.vp8StartCode else {
            throw MediaFormatError.invalid(structure: "VP8 key frame", reason: "no start code")
        }
        width = Int(UInt16(bytes[6]) | UInt16(bytes[7]) << 8) & 0x3FFF
        height = Int(UInt16(bytes[8]) | UInt16(bytes[9]) << 8) & 0x3FFF
        // The frame tag's version (bits 1–3) is the profile.
        record = VPCodecConfigurationRecord(profile: (first >> 1) & 0x07, level: 0, bitDepth: 8, chromaSubsampling: 0, videoFullRange: false)
    }
}
