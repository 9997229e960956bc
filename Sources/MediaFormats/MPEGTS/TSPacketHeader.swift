// ISO/IEC 13818-1 (2019) §2.4.3.2 Transport stream packet layer, Table 2-2 transport_packet(), Table 2-5
// adaptation_field_control values.

/// The 4-byte header in front of every 188-byte transport stream packet.
public struct TSPacketHeader: Sendable, Equatable {
    /// Every packet is 188 bytes.
    public static let packetSize = 188
    /// sync_byte.
    public static let syncByte: UInt8 = 0x47
    /// The header's own length.
    public static let size = 4
    /// PID is 13 bits.
    public static let maxPID: UInt16 = 0x1FFF
    /// Null packets (stuffing of a constant-rate multiplex) carry this PID.
    public static let nullPID: UInt16 = 0x1FFF
    /// The program association table's PID.
    public static let patPID: UInt16 = 0x0000
    /// continuity_counter is 4 bits.
    public static let continuityCounterModulus: UInt8 = 16

    /// adaptation_field_control (Table 2-5).
    public enum AdaptationFieldControl: UInt8, Sendable {
        /// 00: reserved; a decoder discards the packet.
        case reserved = 0
        /// 01: payload only.
        case payloadOnly = 1
        /// 10: adaptation field only, no payload.
        case adaptationFieldOnly = 2
        /// 11: adaptation field followed by payload.
        case adaptationFieldAndPayload = 3

        /// The packet carries payload bytes (and so its continuity_counter counts).
        public var hasPayload: Bool { self == .payloadOnly || self == .adaptationFieldAndPayload }
        /// The packet carries an adaptation field.
        public var hasAdaptationField: Bool { self == .adaptationFieldOnly || self == .adaptationFieldAndPayload }
    }

    /// transport_error_indicator.
    public var transportErrorIndicator: Bool
    /// payload_unit_start_indicator: a PES packet or a PSI section (after a pointer_field) starts here.
    public var payloadUnitStartIndicator: Bool
    /// transport_priority.
    public var transportPriority: Bool
    /// PID (13 bits).
    public var pid: UInt16
    /// transport_scrambling_control (2 bits); 0 means not scrambled.
    public var scramblingControl: UInt8
    /// adaptation_field_control.
    public var adaptationFieldControl: AdaptationFieldControl
    /// continuity_counter (4 bits).
    public var continuityCounter: UInt8

    /// A header from its fields; a PID over 13 bits or a counter over 4 bits is a programmer error.
    public init(pid: UInt16, payloadUnitStartIndicator: Bool = false,
                adaptationFieldControl: AdaptationFieldControl = .payloadOnly, continuityCounter: UInt8 = 0,
                transportErrorIndicator: Bool = false, transportPriority: Bool = false, scramblingControl: UInt8 = 0) {
        precondition(pid <= Self.maxPID && continuityCounter < Self.continuityCounterModulus && scramblingControl < 4,
                     "PID is 13 bits, continuity_counter 4, transport_scrambling_control 2")
        self.transportErrorIndicator = transportErrorIndicator
        self.payloadUnitStartIndicator = payloadUnitStartIndicator
        self.transportPriority = transportPriority
        self.pid = pid
        self.scramblingControl = scramblingControl
        self.adaptationFieldControl = adaptationFieldControl
        self.continuityCounter = continuityCounter
    }

    /// Parses the header at the start of `bytes`; checks the sync byte.
    public init(parsing bytes: some Collection<UInt8>) throws {
        var reader = ByteReader(Array(bytes.prefix(Self.size)))
        let sync = try reader.peekUInt8()
        guard sync == Self.syncByte else {
            throw MediaFormatError.invalid(structure: "TS packet header", reason: "sync_byte is 0x\(String(sync, radix: 16)), not 0x47")
        }
        guard reader.remaining >= Self.size else {
            throw MediaFormatError.truncated(needed: Self.size, available: reader.remaining)
        }
        // 8 bits sync_byte + 1 bit transport_error_indicator + 1 bit payload_unit_start_indicator
        // + 1 bit transport_priority + 13 bits PID + 2 bits scrambling + 2 bits adaptation_field_control + 4 bits CC.
        let word = try reader.readUInt32()
        transportErrorIndicator = word & 0x0080_0000 != 0
        payloadUnitStartIndicator = word & 0x0040_0000 != 0
        transportPriority = word & 0x0020_0000 != 0
        pid = UInt16(truncatingIfNeeded: word >> 8) & Self.maxPID
        scramblingControl = UInt8(truncatingIfNeeded: word >> 6) & 0x03
        adaptationFieldControl = AdaptationFieldControl(rawValue: UInt8(truncatingIfNeeded: word >> 4) & 0x03) ?? .reserved
        continuityCounter = UInt8(truncatingIfNeeded: word) & 0x0F
    }

    /// Appends the 4 header bytes.
    public func write(into out: inout [UInt8]) {
        out.append(Self.syncByte)
        out.append((transportErrorIndicator ? 0x80 : 0) | (payloadUnitStartIndicator ? 0x40 : 0)
                   | (transportPriority ? 0x20 : 0) | UInt8(truncatingIfNeeded: pid >> 8) & 0x1F)
        out.append(UInt8(truncatingIfNeeded: pid))
        out.append(scramblingControl << 6 | adaptationFieldControl.rawValue << 4 | continuityCounter)
    }
}
