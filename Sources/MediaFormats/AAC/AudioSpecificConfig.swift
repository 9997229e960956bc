// ISO/IEC 14496-3 §1.6.2.1 AudioSpecificConfig(), §4.4.1 GASpecificConfig(), §1.6.5 SBR/PS signalling.

/// The MPEG-4 audio decoder configuration: the FLV AAC sequence header, the MP4 `esds` payload, the
/// codec extradata. Fields the model does not cover are kept bit for bit, so nothing is lost on a copy.
public struct AudioSpecificConfig: Sendable, Equatable {
    /// samplingFrequencyIndex 0...12 (Table 1.18); 13 and 14 are reserved, 15 means an explicit 24-bit value.
    public static let samplingFrequencies: [Int] = [
        96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350,
    ]
    /// The samplingFrequencyIndex that announces an explicit 24-bit frequency.
    public static let explicitFrequencyIndex = 15
    /// The largest frequency the explicit 24-bit field holds.
    public static let maxExplicitFrequency = 0xFF_FFFF
    /// The syncExtensionType of backward-compatible SBR signalling (§1.6.2.1).
    static let sbrSyncExtensionType: UInt32 = 0x2B7
    /// The syncExtensionType of backward-compatible PS signalling (§1.6.2.1).
    static let psSyncExtensionType: UInt32 = 0x548

    /// How SBR (HE-AAC) is announced, which decides how the config must be written back (§1.6.5).
    public enum SBRSignalling: Sendable, Equatable {
        /// Nothing is said: a decoder may still find SBR data in the payload (implicit signalling).
        case none
        /// audioObjectType 5 or 29 first, then the extension frequency and the core object type.
        case hierarchical
        /// A core config followed by syncExtensionType 0x2B7 (and perhaps 0x548 for PS).
        case backwardCompatible
    }

    /// The original bytes for a parsed config (copy these for a lossless copy), the canonical ones otherwise.
    public let bytes: [UInt8]
    /// audioObjectType as coded first: 5 (SBR) or 29 (PS) under hierarchical signalling.
    public let objectType: Int
    /// The object type of the core decoder: the second audioObjectType under hierarchical signalling.
    public let coreObjectType: Int
    /// samplingFrequencyIndex: 0...12, or 15 when `samplingFrequency` is explicit.
    public let samplingFrequencyIndex: Int
    /// The core sampling frequency in Hz (half the output rate when SBR is present).
    public let samplingFrequency: Int
    /// channelConfiguration (0 means a program_config_element follows).
    public let channelConfiguration: Int
    /// How SBR is signalled.
    public let sbrSignalling: SBRSignalling
    /// sbrPresentFlag: nil when not signalled (−1 in the spec).
    public let sbrPresent: Bool?
    /// psPresentFlag: nil when not signalled (−1 in the spec).
    public let psPresent: Bool?
    /// extensionSamplingFrequencyIndex when SBR is signalled present.
    public let extensionSamplingFrequencyIndex: Int?
    /// The SBR output sampling frequency in Hz when SBR is signalled present.
    public let extensionSamplingFrequency: Int?
    /// extensionChannelConfiguration, present only for ER BSAC under hierarchical signalling.
    public let extensionChannelConfiguration: Int?
    /// frameLengthFlag: 960 instead of 1024 samples (480 instead of 512 for LD/ELD).
    public let frameLengthFlag: Bool
    /// coreCoderDelay when dependsOnCoreCoder is set.
    public let coreCoderDelay: Int?
    /// GASpecificConfig extensionFlag.
    public let extensionFlag: Bool
    /// Bits after the modelled fields that belong to structures not modelled here (a program_config_element,
    /// layer and resilience fields, ELDSpecificConfig after frameLengthFlag, epConfig …), kept verbatim.
    let unmodelledBits: [UInt8]
    let unmodelledBitCount: Int

    /// The name of `objectType` (Table 1.1).
    public var objectTypeName: String { AudioObjectType.name(of: objectType) }

    /// The rate a decoder outputs: the SBR rate when SBR is signalled present.
    public var outputSamplingFrequency: Int {
        sbrPresent == true ? (extensionSamplingFrequency ?? samplingFrequency) : samplingFrequency
    }

    /// Output channels of `channelConfiguration` (ISO/IEC 14496-3 Table 1.19: 7 is 7.1, 11 is 6.1, 13 is 22.2); nil
    /// for 0 (the program_config_element says) and the reserved values.
    public var channelCount: Int? {
        switch channelConfiguration {
        case 1...6: channelConfiguration
        case 7, 12, 14: 8
        case 11: 7
        case 13: 24
        default: nil
        }
    }

    /// Parses a config; trailing padding is allowed, short input throws `.truncated`.
    public init(parsing bytes: some Collection<UInt8>) throws {
        let input = Array(bytes)
        var bits = BitReader(input)
        let objectType = try AudioObjectType.read(from: &bits)
        guard objectType != 0 else {
            throw MediaFormatError.invalid(structure: "AudioSpecificConfig", reason: "audioObjectType 0 (Null)")
        }
        let (index, frequency) = try Self.readFrequency(from: &bits, field: "samplingFrequencyIndex")
        let channels = Int(try bits.readBits(4))

        var coreType = objectType
        var signalling = SBRSignalling.none
        var sbrPresent: Bool?
        var psPresent: Bool?
        var extensionIndex: Int?
        var extensionFrequency: Int?
        var extensionChannels: Int?
        if objectType == AudioObjectType.sbr || objectType == AudioObjectType.ps {
            signalling = .hierarchical
            sbrPresent = true
            if objectType == AudioObjectType.ps { psPresent = true }
            (extensionIndex, extensionFrequency) = try Self.readFrequency(
                from: &bits, field: "extensionSamplingFrequencyIndex")
            coreType = try AudioObjectType.read(from: &bits)
            // ER BSAC is the one core type that carries its own extension channel count here.
            if coreType == 22 { extensionChannels = Int(try bits.readBits(4)) }
            guard coreType != AudioObjectType.sbr, coreType != AudioObjectType.ps, coreType != 0 else {
                throw MediaFormatError.invalid(
                    structure: "AudioSpecificConfig", reason: "core audioObjectType \(coreType) under SBR signalling")
            }
        }

        var frameLengthFlag = false
        var coreCoderDelay: Int?
        var extensionFlag = false
        // Set when the rest of the bits belong to a structure this type does not model.
        var modelledToEnd = false
        if Self.gaSpecificTypes.contains(coreType) {
            frameLengthFlag = try bits.readFlag()
            if try bits.readFlag() { coreCoderDelay = Int(try bits.readBits(14)) }
            extensionFlag = try bits.readFlag()
            // A PCE, layerNr or the extension fields follow: kept as unmodelled bits.
            modelledToEnd = channels != 0 && coreType != 6 && coreType != 20 && !extensionFlag
        } else if coreType == AudioObjectType.erAACELD {
            frameLengthFlag = try bits.readFlag()
        }

        if modelledToEnd && signalling == .none && bits.bitsRemaining >= 16 {
            var lookahead = bits
            if try lookahead.readBits(11) == Self.sbrSyncExtensionType,
               try AudioObjectType.read(from: &lookahead) == AudioObjectType.sbr {
                signalling = .backwardCompatible
                let present = try lookahead.readFlag()
                sbrPresent = present
                if present {
                    (extensionIndex, extensionFrequency) = try Self.readFrequency(
                        from: &lookahead, field: "extensionSamplingFrequencyIndex")
                    if lookahead.bitsRemaining >= 12 {
                        var psLookahead = lookahead
                        if try psLookahead.readBits(11) == Self.psSyncExtensionType {
                            psPresent = try psLookahead.readFlag()
                            lookahead = psLookahead
                        }
                    }
                }
                bits = lookahead
            } else {
                // Something other than SBR signalling follows: keep it verbatim.
                modelledToEnd = false
            }
        }

        var tail = BitWriter()
        if !modelledToEnd {
            while bits.bitsRemaining > 0 {
                let count = min(bits.bitsRemaining, 32)
                tail.write(try bits.readBits(count), bits: count)
            }
        }

        self.bytes = input
        self.objectType = objectType
        self.coreObjectType = coreType
        self.samplingFrequencyIndex = index
        self.samplingFrequency = frequency
        self.channelConfiguration = channels
        self.sbrSignalling = signalling
        self.sbrPresent = sbrPresent
        self.psPresent = psPresent
        self.extensionSamplingFrequencyIndex = extensionIndex
        self.extensionSamplingFrequency = extensionFrequency
        self.extensionChannelConfiguration = extensionChannels
        self.frameLengthFlag = frameLengthFlag
        self.coreCoderDelay = coreCoderDelay
        self.extensionFlag = extensionFlag
        self.unmodelledBits = tail.bytes
        self.unmodelledBitCount = tail.bitLength
    }

    /// A plain config: AAC Main/LC/SSR/LTP with a GASpecificConfig of zero flags, or AAC-ELD without LD-SBR.
    /// A frequency outside the table is coded explicitly (index 15).
    public init(objectType: Int, samplingFrequency: Int, channelConfiguration: Int) throws {
        guard AudioObjectType.adtsCarriable.contains(objectType) || objectType == AudioObjectType.erAACELD else {
            throw MediaFormatError.unsupported(
                structure: "AudioSpecificConfig",
                reason: "building a config for object type \(objectType) (\(AudioObjectType.name(of: objectType))) "
                    + "is not supported; object types 1–4 and 39 are")
        }
        guard (1...Self.maxExplicitFrequency).contains(samplingFrequency) else {
            throw MediaFormatError.invalid(
                structure: "AudioSpecificConfig", reason: "sampling frequency \(samplingFrequency) Hz")
        }
        guard (1...15).contains(channelConfiguration) else {
            throw MediaFormatError.unsupported(
                structure: "AudioSpecificConfig",
                reason: "channel configuration \(channelConfiguration): 0 needs a program_config_element; 1–15 are supported")
        }
        self.objectType = objectType
        self.coreObjectType = objectType
        self.samplingFrequencyIndex = Self.samplingFrequencies.firstIndex(of: samplingFrequency)
            ?? Self.explicitFrequencyIndex
        self.samplingFrequency = samplingFrequency
        self.channelConfiguration = channelConfiguration
        self.sbrSignalling = .none
        self.sbrPresent = nil
        self.psPresent = nil
        self.extensionSamplingFrequencyIndex = nil
        self.extensionSamplingFrequency = nil
        self.extensionChannelConfiguration = nil
        self.frameLengthFlag = false
        self.coreCoderDelay = nil
        self.extensionFlag = false
        if objectType == AudioObjectType.erAACELD {
            // ELDSpecificConfig after frameLengthFlag: three resilience flags, ldSbrPresentFlag = 0,
            // eldExtType = ELDEXT_TERM (0000), then epConfig = 0 (2 bits): ten zero bits.
            var tail = BitWriter()
            tail.write(0, bits: 10)
            self.unmodelledBits = tail.bytes
            self.unmodelledBitCount = tail.bitLength
        } else {
            self.unmodelledBits = []
            self.unmodelledBitCount = 0
        }
        var canonical: [UInt8] = []
        Self.writeCanonical(
            objectType: objectType, coreObjectType: objectType, samplingFrequencyIndex: samplingFrequencyIndex,
            samplingFrequency: samplingFrequency, channelConfiguration: channelConfiguration,
            sbrSignalling: .none, sbrPresent: nil, psPresent: nil, extensionSamplingFrequencyIndex: nil,
            extensionSamplingFrequency: nil, extensionChannelConfiguration: nil, frameLengthFlag: false,
            coreCoderDelay: nil, extensionFlag: false, unmodelledBits: unmodelledBits,
            unmodelledBitCount: unmodelledBitCount, into: &canonical)
        self.bytes = canonical
    }

    /// Appends the canonical form: the modelled fields, then the unmodelled bits, zero-padded to a byte.
    /// For a parsed config this equals `bytes` except for trailing padding beyond the last field.
    public func write(into out: inout [UInt8]) {
        Self.writeCanonical(
            objectType: objectType, coreObjectType: coreObjectType, samplingFrequencyIndex: samplingFrequencyIndex,
            samplingFrequency: samplingFrequency, channelConfiguration: channelConfiguration,
            sbrSignalling: sbrSignalling, sbrPresent: sbrPresent, psPresent: psPresent,
            extensionSamplingFrequencyIndex: extensionSamplingFrequencyIndex,
            extensionSamplingFrequency: extensionSamplingFrequency,
            extensionChannelConfiguration: extensionChannelConfiguration, frameLengthFlag: frameLengthFlag,
            coreCoderDelay: coreCoderDelay, extensionFlag: extensionFlag, unmodelledBits: unmodelledBits,
            unmodelledBitCount: unmodelledBitCount, into: &out)
    }

    /// Equal bytes and fields; the unmodelled bits are compared through `bytes` (their padding may differ).
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.bytes == rhs.bytes && lhs.objectType == rhs.objectType && lhs.coreObjectType == rhs.coreObjectType
            && lhs.samplingFrequencyIndex == rhs.samplingFrequencyIndex
            && lhs.samplingFrequency == rhs.samplingFrequency && lhs.channelConfiguration == rhs.channelConfiguration
            && lhs.sbrSignalling == rhs.sbrSignalling && lhs.sbrPresent == rhs.sbrPresent
            && lhs.psPresent == rhs.psPresent && lhs.extensionSamplingFrequencyIndex == rhs.extensionSamplingFrequencyIndex
            && lhs.extensionSamplingFrequency == rhs.extensionSamplingFrequency
            && lhs.extensionChannelConfiguration == rhs.extensionChannelConfiguration
            && lhs.frameLengthFlag == rhs.frameLengthFlag && lhs.coreCoderDelay == rhs.coreCoderDelay
            && lhs.extensionFlag == rhs.extensionFlag
    }

    /// Object types whose specific config is GASpecificConfig (§1.6.2.1 switch on audioObjectType).
    static let gaSpecificTypes: Set<Int> = [1, 2, 3, 4, 6, 7, 17, 19, 20, 21, 22, 23]

    /// A 4-bit index, or 15 followed by a 24-bit explicit frequency.
    private static func readFrequency(from bits: inout BitReader, field: String) throws -> (Int, Int) {
        let index = Int(try bits.readBits(4))
        if index == explicitFrequencyIndex {
            let frequency = Int(try bits.readBits(24))
            guard frequency > 0 else {
                throw MediaFormatError.invalid(
                    structure: "AudioSpecificConfig", reason: "\(field) 15 with an explicit frequency of 0 Hz")
            }
            return (index, frequency)
        }
        guard index < samplingFrequencies.count else {
            throw MediaFormatError.invalid(structure: "AudioSpecificConfig", reason: "\(field) \(index) is reserved")
        }
        return (index, samplingFrequencies[index])
    }

    private static func writeFrequency(index: Int, frequency: Int, into bits: inout BitWriter) {
        bits.write(UInt32(index), bits: 4)
        if index == explicitFrequencyIndex { bits.write(UInt32(frequency), bits: 24) }
    }

    // One writer for both inits and `write(into:)`, so the constructed `bytes` and the canonical form agree.
    private static func writeCanonical(
        objectType: Int, coreObjectType: Int, samplingFrequencyIndex: Int, samplingFrequency: Int,
        channelConfiguration: Int, sbrSignalling: SBRSignalling, sbrPresent: Bool?, psPresent: Bool?,
        extensionSamplingFrequencyIndex: Int?, extensionSamplingFrequency: Int?,
        extensionChannelConfiguration: Int?, frameLengthFlag: Bool, coreCoderDelay: Int?, extensionFlag: Bool,
        unmodelledBits: [UInt8], unmodelledBitCount: Int, into out: inout [UInt8]
    ) {
        var bits = BitWriter()
        AudioObjectType.write(objectType, into: &bits)
        writeFrequency(index: samplingFrequencyIndex, frequency: samplingFrequency, into: &bits)
        bits.write(UInt32(channelConfiguration), bits: 4)
        if sbrSignalling == .hierarchical {
            writeFrequency(
                index: extensionSamplingFrequencyIndex ?? samplingFrequencyIndex,
                frequency: extensionSamplingFrequency ?? samplingFrequency, into: &bits)
            AudioObjectType.write(coreObjectType, into: &bits)
            if let extensionChannelConfiguration { bits.write(UInt32(extensionChannelConfiguration), bits: 4) }
        }
        if gaSpecificTypes.contains(coreObjectType) {
            bits.writeFlag(frameLengthFlag)
            bits.writeFlag(coreCoderDelay != nil)
            if let coreCoderDelay { bits.write(UInt32(coreCoderDelay), bits: 14) }
            bits.writeFlag(extensionFlag)
        } else if coreObjectType == AudioObjectType.erAACELD {
            bits.writeFlag(frameLengthFlag)
        }
        if sbrSignalling == .backwardCompatible {
            bits.write(sbrSyncExtensionType, bits: 11)
            AudioObjectType.write(AudioObjectType.sbr, into: &bits)
            bits.writeFlag(sbrPresent == true)
            if sbrPresent == true {
                writeFrequency(
                    index: extensionSamplingFrequencyIndex ?? samplingFrequencyIndex,
                    frequency: extensionSamplingFrequency ?? samplingFrequency, into: &bits)
                if let psPresent {
                    bits.write(psSyncExtensionType, bits: 11)
                    bits.writeFlag(psPresent)
                }
            }
        }
        var remaining = unmodelledBitCount
        var index = 0
        while remaining > 0 {
            let count = min(remaining, 8)
            bits.write(UInt32(unmodelledBits[index] >> (8 - count)), bits: count)
            remaining -= count
            index += 1
        }
        out.append(contentsOf: bits.bytes)
    }
}
