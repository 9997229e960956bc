// Adobe Flash Video File Format Specification v10.1, §E.4.2.1 AUDIODATA (AudioTagHeader).

/// The bytes before audio tag payload: format, rate, size, type, and for AAC the packet type.
/// The payload itself (AudioSpecificConfig or a raw AAC frame) is opaque here.
public struct FLVAudioTagHeader: Sendable, Equatable {
    /// SoundFormat.
    public let soundFormat: FLVSoundFormat
    /// SoundRate.
    public let soundRate: FLVSoundRate
    /// SoundSize.
    public let soundSize: FLVSoundSize
    /// SoundType.
    public let soundType: FLVSoundType
    /// AACPacketType when `soundFormat` is AAC.
    public let aacPacketType: FLVAACPacketType?

    /// 2 bytes for AAC, 1 otherwise: where the payload starts in the tag data.
    public var byteCount: Int { soundFormat == .aac ? FLVLimits.aacAudioTagHeaderSize : 1 }

    /// The AAC header the spec requires: SoundFormat 10, rate 3 (44 kHz), size 1 (16-bit), type 1 (stereo),
    /// whatever the real stream is (the AudioSpecificConfig says that).
    public init(aacPacketType: FLVAACPacketType) {
        self.soundFormat = .aac
        self.soundRate = .kHz44
        self.soundSize = .bits16
        self.soundType = .stereo
        self.aacPacketType = aacPacketType
    }

    /// A whole legacy AAC tag body: this header and `payload` (an AudioSpecificConfig or a raw frame).
    public static func aacBody(_ type: FLVAACPacketType, _ payload: some Collection<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(payload.count + FLVLimits.aacAudioTagHeaderSize)
        FLVAudioTagHeader(aacPacketType: type).write(into: &out)
        out += payload
        return out
    }

    /// A header for a format other than AAC (one byte).
    public init(soundFormat: FLVSoundFormat, soundRate: FLVSoundRate, soundSize: FLVSoundSize, soundType: FLVSoundType) {
        precondition(soundFormat != .aac, "AAC needs a packet type")
        self.soundFormat = soundFormat
        self.soundRate = soundRate
        self.soundSize = soundSize
        self.soundType = soundType
        self.aacPacketType = nil
    }

    /// Parses the start of the audio tag data.
    public init(parsing reader: inout ByteReader) throws {
        var r = reader
        // 4 bits SoundFormat + 2 bits SoundRate + 1 bit SoundSize + 1 bit SoundType.
        let first = try r.readUInt8()
        guard let format = FLVSoundFormat(rawValue: first >> 4) else {
            throw MediaFormatError.unsupported(structure: "FLV audio tag header", reason: "SoundFormat \(first >> 4)")
        }
        var packetType: FLVAACPacketType?
        if format == .aac {
            let rawType = try r.readUInt8()
            guard let type = FLVAACPacketType(rawValue: rawType) else {
                throw MediaFormatError.invalid(structure: "FLV audio tag header", reason: "AACPacketType \(rawType)")
            }
            packetType = type
        }
        self.soundFormat = format
        // Every 2-bit and 1-bit value is a case, so these cannot fail; `?? ` keeps them free of force-unwraps.
        self.soundRate = FLVSoundRate(rawValue: (first >> 2) & 0x03) ?? .kHz44
        self.soundSize = FLVSoundSize(rawValue: (first >> 1) & 0x01) ?? .bits16
        self.soundType = FLVSoundType(rawValue: first & 0x01) ?? .stereo
        self.aacPacketType = packetType
        reader = r
    }

    /// Appends 1 or 2 bytes.
    public func write(into out: inout [UInt8]) {
        // 4 bits SoundFormat + 2 bits SoundRate + 1 bit SoundSize + 1 bit SoundType (AAC: 1010 11 1 1 = 0xAF).
        out.append(soundFormat.rawValue << 4 | soundRate.rawValue << 2 | soundSize.rawValue << 1 | soundType.rawValue)
        if let aacPacketType { out.append(aacPacketType.rawValue) }
    }
}
