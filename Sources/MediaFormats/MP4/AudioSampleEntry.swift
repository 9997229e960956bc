// ISO/IEC 14496-12 (2022) §12.2.3 AudioSampleEntry (version 0); the entries: ISO/IEC 14496-14 §5.6 'mp4a' + 'esds',
// Encapsulation of Opus in ISO Base Media File Format (v0.8) §4.3.1 'Opus' + 'dOps'.

/// An audio sample entry (`mp4a`, `Opus`) with its decoder configuration box.
public struct AudioSampleEntry: MP4SampleEntry {
    /// The entry's type.
    public var boxType: MP4FourCC
    /// channelcount (informative for AAC, whose AudioSpecificConfig rules; the output count for Opus).
    public var channelCount: Int
    /// The sample rate in Hz; written as 0 when it does not fit the 16-bit integer part of samplerate.
    public var sampleRate: Int
    /// The codec configuration box (`esds`, `dOps`).
    public var configuration: any MP4Box

    /// MPEG-4 audio (AAC).
    public static let mp4a: MP4FourCC = "mp4a"
    /// Opus.
    public static let opus: MP4FourCC = "Opus"
    /// SampleEntry + reserved 2 × 32 bits + channelcount, samplesize, pre_defined, reserved + samplerate.
    public static let fixedSize = 28
    /// samplesize: 16 bits, the value §12.2.3.2 requires.
    static let sampleSizeBits: UInt16 = 16
    /// The largest rate the 16.16 samplerate holds; FFmpeg writes 0 above it too.
    static let maxSampleRate = Int(UInt16.max)

    /// An entry from its fields; a channel count outside 16 bits throws.
    public init(type: MP4FourCC, channelCount: Int, sampleRate: Int, configuration: any MP4Box) throws {
        guard (0...Int(UInt16.max)).contains(channelCount) else {
            throw MediaFormatError.limitExceeded(what: "'\(type)' channelcount", value: channelCount, limit: Int(UInt16.max))
        }
        (boxType, self.channelCount, self.sampleRate, self.configuration) = (type, channelCount, sampleRate, configuration)
    }

    public var configurationBox: any MP4Box { configuration }

    public func writeEntryFields(into out: inout [UInt8]) {
        out.append(contentsOf: repeatElement(0, count: 8))  // reserved 2 × 32 bits
        out.appendUInt16(UInt16(channelCount))  // checked in init
        out.appendUInt16(Self.sampleSizeBits)
        out.appendUInt16(0)  // pre_defined
        out.appendUInt16(0)  // reserved
        let rate = (0...Self.maxSampleRate).contains(sampleRate) ? UInt32(sampleRate) : 0
        out.appendUInt32(rate << 16)  // 16.16 fixed point
    }
}
