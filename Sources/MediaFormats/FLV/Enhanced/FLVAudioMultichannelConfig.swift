// Enhanced RTMP v2, ExAudioTagBody, AudioPacketType.MultichannelConfig: UI8 AudioChannelOrder, UI8 channelCount,
// then UI8[channelCount] AudioChannel (Custom) or UI32 AudioChannelMask flags (Native).

/// The channel layout of a track whose codec does not describe its own.
public struct FLVAudioMultichannelConfig: Sendable, Equatable {
    /// AudioChannelOrder with what each order carries.
    public enum Order: Sendable, Equatable {
        /// Only the channel count is known.
        case unspecified
        /// Channels in AudioChannel order; the flags (AudioChannelMask bits) say which are present.
        case native(channelFlags: UInt32)
        /// The speaker (AudioChannel value, 0xFE unused, 0xFF unknown) of each channel in bitstream order.
        case custom(mapping: [UInt8])
    }

    /// AudioChannelOrder raw values.
    enum OrderValue {
        static let unspecified: UInt8 = 0
        static let native: UInt8 = 1
        static let custom: UInt8 = 2
    }

    /// channelCount.
    public var channelCount: UInt8
    /// audioChannelOrder and its data.
    public var order: Order

    /// A configuration; for `.custom` the mapping must have `channelCount` entries (checked when written).
    public init(channelCount: UInt8, order: Order) {
        self.channelCount = channelCount
        self.order = order
    }

    private static let structure = "FLV audio multichannel config"

    /// Parses a MultichannelConfig track payload.
    public init(parsing bytes: ArraySlice<UInt8>) throws {
        var reader = ByteReader(bytes)
        let rawOrder = try reader.readUInt8()
        channelCount = try reader.readUInt8()
        switch rawOrder {
        case OrderValue.unspecified: order = .unspecified
        case OrderValue.native: order = .native(channelFlags: try reader.readUInt32())
        case OrderValue.custom: order = .custom(mapping: Array(try reader.readBytes(Int(channelCount))))
        default: throw MediaFormatError.unsupported(structure: Self.structure, reason: "AudioChannelOrder \(rawOrder)")
        }
    }

    /// Appends the payload.
    public func write(into out: inout [UInt8]) throws {
        switch order {
        case .unspecified:
            out += [OrderValue.unspecified, channelCount]
        case let .native(flags):
            out += [OrderValue.native, channelCount]
            out.appendUInt32(flags)
        case let .custom(mapping):
            guard mapping.count == Int(channelCount) else {
                throw MediaFormatError.invalid(
                    structure: Self.structure, reason: "\(mapping.count) channel mappings for \(channelCount) channels")
            }
            out += [OrderValue.custom, channelCount]
            out += mapping
        }
    }
}
