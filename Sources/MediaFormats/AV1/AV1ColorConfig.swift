// AV1 Bitstream & Decoding Process Specification §5.5.2 color_config() and §6.4.2 semantics.

/// color_config() of a sequence header: bit depth, monochrome, chroma subsampling and colour description.
public struct AV1ColorConfig: Hashable, Sendable {
    /// BitDepth: 8, 10 or 12.
    public var bitDepth: Int
    /// mono_chrome.
    public var monochrome: Bool
    /// color_primaries, transfer_characteristics, matrix_coefficients (H.273 code points; 2 when not described).
    public var colorPrimaries: UInt8
    public var transferCharacteristics: UInt8
    public var matrixCoefficients: UInt8
    /// color_range: true full range.
    public var fullRange: Bool
    /// subsampling_x, subsampling_y: (1, 1) is 4:2:0, (1, 0) 4:2:2, (0, 0) 4:4:4.
    public var subsamplingX: Bool
    public var subsamplingY: Bool
    /// chroma_sample_position (0 unknown, 1 vertical, 2 colocated).
    public var chromaSamplePosition: UInt8
    /// separate_uv_delta_q.
    public var separateUVDeltaQ: Bool

    /// high_bitdepth as av1C writes it.
    public var highBitdepth: Bool { bitDepth > 8 }
    /// twelve_bit as av1C writes it.
    public var twelveBit: Bool { bitDepth == 12 }

    /// CP_BT_709, TC_SRGB and MC_IDENTITY: the sRGB combination that implies 4:4:4 full range.
    static let srgb: (UInt8, UInt8, UInt8) = (1, 13, 0)
    /// CP_UNSPECIFIED, TC_UNSPECIFIED, MC_UNSPECIFIED.
    static let unspecified: UInt8 = 2

    /// Reads color_config() for `seqProfile` (0...2).
    init(parsing reader: inout BitReader, seqProfile: UInt8) throws {
        let high = try reader.readFlag()
        if seqProfile == 2 && high {
            bitDepth = try reader.readFlag() ? 12 : 10
        } else {
            bitDepth = high ? 10 : 8
        }
        monochrome = seqProfile == 1 ? false : try reader.readFlag()
        if try reader.readFlag() {
            colorPrimaries = UInt8(try reader.readBits(8))
            transferCharacteristics = UInt8(try reader.readBits(8))
            matrixCoefficients = UInt8(try reader.readBits(8))
        } else {
            colorPrimaries = Self.unspecified
            transferCharacteristics = Self.unspecified
            matrixCoefficients = Self.unspecified
        }
        chromaSamplePosition = 0
        if monochrome {
            fullRange = try reader.readFlag()
            subsamplingX = true
            subsamplingY = true
            separateUVDeltaQ = false
            return
        }
        if (colorPrimaries, transferCharacteristics, matrixCoefficients) == Self.srgb {
            fullRange = true
            subsamplingX = false
            subsamplingY = false
        } else {
            fullRange = try reader.readFlag()
            switch seqProfile {
            case 0:
                subsamplingX = true
                subsamplingY = true
            case 1:
                subsamplingX = false
                subsamplingY = false
            default:
                if bitDepth == 12 {
                    subsamplingX = try reader.readFlag()
                    subsamplingY = subsamplingX ? try reader.readFlag() : false
                } else {
                    subsamplingX = true
                    subsamplingY = false
                }
            }
            if subsamplingX && subsamplingY { chromaSamplePosition = UInt8(try reader.readBits(2)) }
        }
        separateUVDeltaQ = try reader.readFlag()
    }
}
