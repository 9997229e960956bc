// RFC 6416 §6 (MP4A-LATM: the payload, §6.1; cpresent and config, §7.3) and ISO/IEC 14496-3 §1.7.3 (LATM:
// StreamMuxConfig, PayloadLengthInfo, PayloadMux).

/// The StreamMuxConfig of an `MP4A-LATM` stream, read from the SDP's `config` (out of band, `cpresent=0`): the one
/// program and layer this edge carries, with its AudioSpecificConfig.
public struct LATMStreamMuxConfig: Sendable, Equatable {
    /// The configuration of the AAC frames, as an FLV sequence header or an `esds` carries it.
    public let audioSpecificConfig: AudioSpecificConfig
    /// PayloadMux elements per AudioMuxElement, less one (numSubFrames).
    public let subFrames: Int

    /// Reads `config`'s hex digits. Only what cameras send is taken: audioMuxVersion 0, all streams on one time
    /// framing, one program of one layer, a GA-specific AudioSpecificConfig, frame lengths in PayloadLengthInfo
    /// (frameLengthType 0). Bits missing at the end are read as zeros (GStreamer's payloader stops after the
    /// AudioSpecificConfig, and FFmpeg reads it that way).
    public init(hex: String) throws {
        let digits = Array(hex.utf8)
        guard !digits.isEmpty, digits.count % 2 == 0 else {
            throw MediaFormatError.invalid(structure: "MP4A-LATM config", reason: "\"\(hex)\" is not an even number of hex digits")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = Self.hexValue(digits[index]), let low = Self.hexValue(digits[index + 1]) else {
                throw MediaFormatError.invalid(structure: "MP4A-LATM config", reason: "\"\(hex)\" is not hex")
            }
            bytes.append(high << 4 | low)
        }
        try self.init(bytes: bytes)
    }

    public init(bytes: [UInt8]) throws {
        // Eight zero octets after the config: its optional tail reads as zeros, never as truncation.
        var bits = BitReader(bytes + [UInt8](repeating: 0, count: 8))
        func field(_ count: Int) throws -> Int {
            do { return Int(try bits.readBits(count)) } catch {
                throw MediaFormatError.invalid(structure: "MP4A-LATM config", reason: "it ends inside a \(count)-bit field")
            }
        }
        func refuse(_ what: String) -> MediaFormatError {
            .unsupported(structure: "MP4A-LATM config", reason: what)
        }
        guard try field(1) == 0 else { throw refuse("audioMuxVersion 1") }
        guard try field(1) == 1 else { throw refuse("streams on different time framings (allStreamsSameTimeFraming 0)") }
        subFrames = try field(6)
        guard try field(4) == 0 else { throw refuse("more than one program") }
        guard try field(3) == 0 else { throw refuse("more than one layer") }
        // The AudioSpecificConfig is bit-aligned here: its bits are measured by reading it, then copied out whole.
        let start = bits.bitPosition
        var objectType = try field(5)
        if objectType == 31 { objectType = 32 + (try field(6)) }
        if try field(4) == AudioSpecificConfig.explicitFrequencyIndex { _ = try field(24) }
        let channels = try field(4)
        if objectType == AudioObjectType.sbr || objectType == AudioObjectType.ps {
            if try field(4) == AudioSpecificConfig.explicitFrequencyIndex { _ = try field(24) }
            objectType = try field(5)
            if objectType == 31 { objectType = 32 + (try field(6)) }
        }
        guard AudioSpecificConfig.gaSpecificTypes.contains(objectType), objectType != 6, objectType != 20 else {
            throw refuse("audio object type \(objectType) (\(AudioObjectType.name(of: objectType))); AAC is carried")
        }
        guard channels != 0 else { throw refuse("channel configuration 0 (a program_config_element)") }
        _ = try field(1)  // frameLengthFlag
        if try field(1) == 1 { _ = try field(14) }  // dependsOnCoreCoder, coreCoderDelay
        guard try field(1) == 0 else { throw refuse("a GASpecificConfig with extensionFlag set") }
        let length = bits.bitPosition - start
        guard try field(3) == 0 else { throw refuse("frameLengthType other than 0") }
        var copy = BitReader(bytes + [UInt8](repeating: 0, count: 8))
        try copy.skipBits(start)
        var config = BitWriter()
        var left = length
        while left > 0 {
            let count = min(left, 32)
            config.write(try copy.readBits(count), bits: count)
            left -= count
        }
        audioSpecificConfig = try AudioSpecificConfig(parsing: config.bytes)
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// Turns the `MP4A-LATM` packets of one SSRC, in sequence order, into raw AAC frames. A packet holds one or more whole
/// AudioMuxElements, or one element in fragments over several packets that share a timestamp (the last one marked).
/// Each element is PayloadLengthInfo (octets of 255 summed, ended by one below) and the frame, once per sub-frame.
public struct LATMDepacketizer: Sendable {
    public let config: LATMStreamMuxConfig
    private var sequence = RTPSequenceTracker()
    /// The element in progress: its timestamp and octets so far.
    private var pending: (timestamp: UInt32, bytes: [UInt8])?
    /// The timestamp of an element a loss broke: its remaining fragments are dropped, not read as elements.
    private var broken: UInt32?
    /// The most octets one element may gather before it is taken as malformed (an 8 kHz … 96 kHz AAC frame is far less).
    public static let maxElementBytes = 1 << 16

    public init(config: LATMStreamMuxConfig) {
        self.config = config
    }

    private var samplesPerFrame: UInt32 { config.audioSpecificConfig.frameLengthFlag ? 960 : 1024 }

    /// The frames `packet` completes. A loss drops the element it fell in (and the rest of its fragments); frames after
    /// the first in a packet are timed one frame length apart. An element whose lengths do not fill it exactly is dropped
    /// whole (a fragment whose start was lost reads that way).
    public mutating func depacketize(_ packet: RTPPacket) -> [AACDepacketizerOutput] {
        var outputs: [AACDepacketizerOutput] = []
        guard let loss = sequence.admitting(packet.sequenceNumber) else { return [] }
        if let loss, let lost = pending {
            outputs.append(.dropped(rtpTimestamp: lost.timestamp, reason: loss))
            broken = lost.timestamp
            pending = nil
        }
        if let broken, broken == packet.timestamp {
            if packet.marker { self.broken = nil }
            return outputs
        }
        broken = nil
        if let unfinished = pending, unfinished.timestamp != packet.timestamp {
            outputs.append(.dropped(rtpTimestamp: unfinished.timestamp,
                                    reason: .malformed(.invalid(structure: "MP4A-LATM payload", reason: "a fragmented AudioMuxElement without its end"))))
            pending = nil
        }
        var element = pending?.bytes ?? []
        element += packet.payload
        guard packet.marker else {
            if element.count > Self.maxElementBytes {
                outputs.append(.dropped(rtpTimestamp: packet.timestamp,
                                        reason: .malformed(.invalid(structure: "MP4A-LATM payload", reason: "an AudioMuxElement over \(Self.maxElementBytes) octets"))))
                pending = nil
            } else {
                pending = (packet.timestamp, element)
            }
            return outputs
        }
        pending = nil
        var position = 0
        var timestamp = packet.timestamp
        var frames: [AACDepacketizerOutput] = []
        while position < element.count {
            for _ in 0...config.subFrames {
                var length = 0
                while true {
                    guard position < element.count else {
                        outputs.append(.dropped(rtpTimestamp: timestamp, reason: .malformed(.invalid(structure: "MP4A-LATM payload", reason: "it ends inside a PayloadLengthInfo"))))
                        return outputs
                    }
                    let octet = Int(element[position])
                    position += 1
                    length += octet
                    if octet != 255 { break }
                }
                guard length <= element.count - position else {
                    outputs.append(.dropped(rtpTimestamp: timestamp,
                                            reason: .malformed(.invalid(structure: "MP4A-LATM payload", reason: "a frame of \(length) octets with \(element.count - position) left"))))
                    return outputs
                }
                if length > 0 {
                    frames.append(.frame(AACFrame(bytes: Array(element[position..<position + length]), rtpTimestamp: timestamp)))
                }
                position += length
                timestamp &+= samplesPerFrame
            }
        }
        return outputs + frames
    }
}
