// Enhanced RTMP v2, ExAudioTagHeader / ExVideoTagHeader: audio and video signal alike (a packet type with ModEx and
// Multitrack values, a FourCC per codec); these protocols let one reader check both.

/// AudioPacketType or VideoPacketType: two of its values signal (ModEx, Multitrack) rather than name content.
protocol FLVExPacketType: RawRepresentable<UInt8>, Equatable {
    /// Signals a ModEx block before the real packet type.
    static var modEx: Self { get }
    /// Signals multitrack mode.
    static var multitrack: Self { get }
    /// The field's name in the spec, for errors.
    static var fieldName: String { get }
}

extension FLVExPacketType {
    /// The packet type of a track's content: a known value that does not signal, else `.unsupported`.
    static func content(_ raw: UInt8, structure: String) throws -> Self {
        guard let type = Self(rawValue: raw), type != .multitrack, type != .modEx else {
            throw MediaFormatError.unsupported(structure: structure, reason: "\(fieldName) \(raw) for a track")
        }
        return type
    }
}

/// AudioFourCc or VideoFourCc.
protocol FLVExFourCC: RawRepresentable<UInt32> {
    /// The field's name in the spec, for errors.
    static var fieldName: String { get }
}

extension FLVExFourCC {
    /// The codec `raw` names, else `.unsupported` with its four characters.
    static func named(_ raw: UInt32, structure: String) throws -> Self {
        guard let fourCC = Self(rawValue: raw) else {
            throw MediaFormatError.unsupported(structure: structure, reason: "\(fieldName) \"\(FourCCText.string(raw))\"")
        }
        return fourCC
    }
}

extension FLVAudioPacketType: FLVExPacketType {
    static let fieldName = "AudioPacketType"
}

extension FLVVideoPacketType: FLVExPacketType {
    static let fieldName = "VideoPacketType"
}

extension FLVAudioFourCC: FLVExFourCC {
    static let fieldName = "AudioFourCc"
}

extension FLVVideoFourCC: FLVExFourCC {
    static let fieldName = "VideoFourCc"
}
