// Adobe Flash Video File Format Specification v10.1, §E.4.3.1 VIDEODATA (VideoTagHeader).

/// The bytes before video tag payload: frame type and codec, and for AVC the packet type and
/// composition time. The payload itself (avcC or AVCC NAL units) is opaque here.
public struct FLVVideoTagHeader: Sendable, Equatable {
    /// FrameType.
    public let frameType: FLVVideoFrameType
    /// CodecID.
    public let codecID: FLVVideoCodecID
    /// AVCPacketType when `codecID` is AVC.
    public let avcPacketType: FLVAVCPacketType?
    /// CompositionTime (PTS − DTS, ms) when `codecID` is AVC, SI24; 0 otherwise.
    public let compositionTime: Int32

    /// 5 bytes for AVC, 1 otherwise: where the payload starts in the tag data.
    public var byteCount: Int { codecID == .avc ? FLVLimits.avcVideoTagHeaderSize : 1 }

    /// An AVC header; `compositionTime` must lie in `FLVLimits.compositionTimeRange` (checked by callers).
    public init(frameType: FLVVideoFrameType, avcPacketType: FLVAVCPacketType, compositionTime: Int32) {
        precondition(FLVLimits.compositionTimeRange.contains(compositionTime), "compositionTime must fit SI24")
        self.frameType = frameType
        self.codecID = .avc
        self.avcPacketType = avcPacketType
        self.compositionTime = compositionTime
    }

    /// A header for a codec other than AVC (one byte).
    public init(frameType: FLVVideoFrameType, codecID: FLVVideoCodecID) {
        precondition(codecID != .avc, "AVC needs a packet type and composition time")
        self.frameType = frameType
        self.codecID = codecID
        self.avcPacketType = nil
        self.compositionTime = 0
    }

    /// Parses the start of the video tag data.
    public init(parsing reader: inout ByteReader) throws {
        var r = reader
        // 4 bits FrameType + 4 bits CodecID.
        let first = try r.readUInt8()
        guard first & 0x80 == 0 else {
            throw MediaFormatError.unsupported(
                structure: "FLV video tag header", reason: "enhanced FLV (IsExHeader bit set)")
        }
        guard let frameType = FLVVideoFrameType(rawValue: first >> 4) else {
            throw MediaFormatError.invalid(structure: "FLV video tag header", reason: "FrameType \(first >> 4)")
        }
        guard let codecID = FLVVideoCodecID(rawValue: first & 0x0F) else {
            throw MediaFormatError.unsupported(structure: "FLV video tag header", reason: "CodecID \(first & 0x0F)")
        }
        var packetType: FLVAVCPacketType?
        var compositionTime: Int32 = 0
        if codecID == .avc {
            let rawType = try r.readUInt8()
            guard let type = FLVAVCPacketType(rawValue: rawType) else {
                throw MediaFormatError.invalid(structure: "FLV video tag header", reason: "AVCPacketType \(rawType)")
            }
            packetType = type
            compositionTime = try r.readInt24()
        }
        self.frameType = frameType
        self.codecID = codecID
        self.avcPacketType = packetType
        self.compositionTime = compositionTime
        reader = r
    }

    /// Appends 1 or 5 bytes.
    public func write(into out: inout [UInt8]) {
        // 4 bits FrameType + 4 bits CodecID (AVC keyframe: 0001 0111 = 0x17).
        out.append(frameType.rawValue << 4 | codecID.rawValue)
        if let avcPacketType {
            out.append(avcPacketType.rawValue)
            // SI24 two's complement: the low 24 bits of the Int32.
            out.appendUInt24(UInt32(bitPattern: compositionTime) & 0xFF_FFFF)
        }
    }
}
