// RFC 7741 §4.2 (VP8 payload descriptor) and RFC 9628 §4.2 (VP9 payload descriptor, flexible and non-flexible modes,
// the scalability structure): what is after each descriptor is a piece of a frame.

/// A VP8 RTP packet: its payload descriptor read past, the rest a piece of one frame. A frame starts at the packet with
/// S set and partition index 0 (then its frame tag says whether it is a key frame) and ends at the marker.
public struct VP8RTPPayload: RTPVideoPayload {
    public static let structure = "VP8 RTP payload"
    public static let fragmentStructure = "VP8 frame piece"
    public static func isKeyframe(firstByte: UInt8) -> Bool { VPXKeyframe.isVP8Keyframe(firstByte: firstByte) }

    public let content: RTPVideoPayloadContent

    public init(parsing bytes: ArraySlice<UInt8>) throws {
        var reader = ByteReader(bytes)
        let first = try reader.readUInt8()
        let startsPartition = first & 0x10 != 0, partition = first & 0x07
        if first & 0x80 != 0 {  // X
            let extensions = try reader.readUInt8()
            if extensions & 0x80 != 0 {  // I: PictureID, 7 or 15 bits (M)
                if try reader.readUInt8() & 0x80 != 0 { _ = try reader.readUInt8() }
            }
            if extensions & 0x40 != 0 { _ = try reader.readUInt8() }  // L: TL0PICIDX
            if extensions & 0x30 != 0 { _ = try reader.readUInt8() }  // T or K: TID, Y, KEYIDX
        }
        let piece = reader.readRemaining()
        guard !piece.isEmpty else { throw MediaFormatError.invalid(structure: Self.structure, reason: "no payload after the descriptor") }
        let startsFrame = startsPartition && partition == 0
        content = .piece(piece, startsFrame: startsFrame, isKeyframe: startsFrame && VPXKeyframe.isVP8Keyframe(firstByte: piece[piece.startIndex]))
    }
}

/// A VP9 RTP packet: its payload descriptor read past, the rest a piece of one frame, B marking a frame's first packet
/// and E its last. A picture (one RTP timestamp) of several frames (spatial layers, a hidden frame) becomes a superframe.
public struct VP9RTPPayload: RTPVideoPayload {
    public static let structure = "VP9 RTP payload"
    public static let fragmentStructure = "VP9 frame piece"
    public static func isKeyframe(firstByte: UInt8) -> Bool { VPXKeyframe.isVP9Keyframe(firstByte: firstByte) }

    public let content: RTPVideoPayloadContent

    public init(parsing bytes: ArraySlice<UInt8>) throws {
        var reader = ByteReader(bytes)
        let first = try reader.readUInt8()
        let (pictureID, predicted, layers, flexible) = (first & 0x80 != 0, first & 0x40 != 0, first & 0x20 != 0, first & 0x10 != 0)
        let (begins, ends, structure) = (first & 0x08 != 0, first & 0x04 != 0, first & 0x02 != 0)
        if pictureID, try reader.readUInt8() & 0x80 != 0 { _ = try reader.readUInt8() }
        if layers {
            _ = try reader.readUInt8()  // TID, U, SID, D
            if !flexible { _ = try reader.readUInt8() }  // TL0PICIDX
        }
        if flexible && predicted {
            // Up to 3 reference indices, each byte's N bit saying another follows.
            var count = 0
            while try reader.readUInt8() & 0x01 != 0 {
                count += 1
                guard count < 3 else { throw MediaFormatError.invalid(structure: Self.structure, reason: "more than 3 reference indices") }
            }
        }
        if structure {
            let header = try reader.readUInt8()
            let spatialLayers = Int(header >> 5) + 1
            if header & 0x10 != 0 { _ = try reader.readBytes(4 * spatialLayers) }  // Y: each layer's width and height
            if header & 0x08 != 0 {  // G: the picture group
                for _ in 0..<Int(try reader.readUInt8()) {
                    let picture = try reader.readUInt8()
                    _ = try reader.readBytes(Int((picture >> 2) & 0x03))
                }
            }
        }
        let piece = reader.readRemaining()
        guard !piece.isEmpty else { throw MediaFormatError.invalid(structure: Self.structure, reason: "no payload after the descriptor") }
        if begins && ends {
            content = .nalUnits([piece])
        } else {
            let head = piece[piece.startIndex]
            content = .fragment(header: begins ? [head] : [], data: begins ? piece.dropFirst() : piece, isStart: begins, isEnd: ends)
        }
    }
}

/// VP8 over RTP: each frame's pieces, in order (the edge joins them).
public typealias VP8Depacketizer = RTPVideoDepacketizer<VP8RTPPayload>
/// VP9 over RTP: each picture's frames, whole.
public typealias VP9Depacketizer = RTPVideoDepacketizer<VP9RTPPayload>
