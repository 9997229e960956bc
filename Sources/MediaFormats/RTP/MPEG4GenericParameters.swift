// RFC 3640 §4.1 (the mpeg4-generic format parameters), §3.3.5 and §3.3.6 (the AAC-lbr and AAC-hbr modes).

/// The `a=fmtp` parameters of an `mpeg4-generic` AAC stream: how its AU headers are laid out and the decoder
/// configuration. Only what the AAC modes use is read; a parameter that would add fields this reader does not
/// parse (CTS or DTS deltas, random access or stream state flags, auxiliary data) throws `.unsupported`.
public struct MPEG4GenericParameters: Sendable, Equatable {
    /// The longest AU header field read: AU sizes are at most 16 bits in the AAC modes (13 in AAC-hbr).
    public static let maxFieldLength = 16

    /// `mode`: "AAC-hbr" or "AAC-lbr" (compared without case).
    public var mode: String
    /// `sizeLength`: bits of the AU-size field.
    public var sizeLength: Int
    /// `indexLength`: bits of the first AU header's AU-Index.
    public var indexLength: Int
    /// `indexDeltaLength`: bits of every later AU header's AU-Index-delta.
    public var indexDeltaLength: Int
    /// `config`: the AudioSpecificConfig, hex in the SDP.
    public var config: AudioSpecificConfig

    /// Samples per AAC frame: 960 with frameLengthFlag set, 1024 otherwise.
    public var samplesPerFrame: Int { config.frameLengthFlag ? 960 : 1024 }

    public init(mode: String = "AAC-hbr", sizeLength: Int = 13, indexLength: Int = 3, indexDeltaLength: Int = 3, config: AudioSpecificConfig) {
        precondition([sizeLength, indexLength, indexDeltaLength].allSatisfy { (0...Self.maxFieldLength).contains($0) } && sizeLength > 0,
                     "AU header fields are 0...16 bits, the size at least 1")
        self.mode = mode
        self.sizeLength = sizeLength
        self.indexLength = indexLength
        self.indexDeltaLength = indexDeltaLength
        self.config = config
    }

    /// The parameters of one `a=fmtp` line, names in any case (RFC 3640 §4.1 makes them case-insensitive).
    public init(parameters: [String: String]) throws {
        var byName: [String: String] = [:]
        for (name, value) in parameters { byName[name.lowercased()] = value.trimmingSpaces }
        guard let mode = byName["mode"] else { throw Self.invalid("no mode parameter") }
        guard ["aac-hbr", "aac-lbr"].contains(mode.lowercased()) else {
            throw MediaFormatError.unsupported(structure: "mpeg4-generic fmtp", reason: "mode \(mode) (only AAC-hbr and AAC-lbr are read)")
        }
        for name in ["ctsdeltalength", "dtsdeltalength", "randomaccessindication", "streamstateindication", "auxiliarydatasizelength"] {
            if let value = byName[name], value != "0" {
                throw MediaFormatError.unsupported(structure: "mpeg4-generic fmtp", reason: "\(name)=\(value)")
            }
        }
        func length(_ name: String, required: Bool) throws -> Int {
            guard let text = byName[name] else {
                if required { throw Self.invalid("no \(name) parameter") }
                return 0
            }
            guard let value = Int(text), (0...Self.maxFieldLength).contains(value) else {
                throw Self.invalid("\(name)=\(text) is not a length of 0...\(Self.maxFieldLength) bits")
            }
            return value
        }
        let sizeLength = try length("sizelength", required: true)
        guard sizeLength > 0 else { throw Self.invalid("sizelength=0") }
        guard let configText = byName["config"] else { throw Self.invalid("no config parameter") }
        guard let configBytes = Self.bytes(hex: configText) else { throw Self.invalid("config=\(configText) is not hexadecimal") }
        self.init(mode: mode, sizeLength: sizeLength, indexLength: try length("indexlength", required: false),
                  indexDeltaLength: try length("indexdeltalength", required: false), config: try AudioSpecificConfig(parsing: configBytes))
    }

    private static func invalid(_ reason: String) -> MediaFormatError {
        .invalid(structure: "mpeg4-generic fmtp", reason: reason)
    }

    /// The octets of an even-length hex string; nil for anything else.
    static func bytes(hex text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard !digits.isEmpty, digits.count % 2 == 0 else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }
}
