// Enhanced RTMP (v2) vp08 and vp09: a SequenceStart with the VPCodecConfigurationRecord, then CodedFrames of whole
// frames (VP9: a picture of several frames as a superframe, VP9 Bitstream Specification Annex B).

/// One VP8 or VP9 RTP stream's pictures made Enhanced RTMP tags, from the first key frame; a SequenceStart again when
/// a key frame's configuration (profile, bit depth, chroma, range) changes.
struct RTPVPXTrack: Sendable {
    enum Codec: Sendable { case vp8, vp9 }

    let codec: Codec
    /// The vpcC last sent; nil before the first key frame.
    private var sentRecord: [UInt8]?

    init(codec: Codec) { self.codec = codec }

    /// The tags of one picture: VP8's pieces of its frame, or VP9's frames.
    mutating func convert(units: [[UInt8]]) throws -> TSToFLVVideoTrack.Output {
        guard let first = units.first, !first.isEmpty else { return .empty }
        let frame: [UInt8]
        let keyframe: VPXKeyframe?
        switch codec {
        case .vp8:
            frame = units.count == 1 ? first : Array(units.joined())
            keyframe = try VPXKeyframe(vp8: frame[...])
        case .vp9:
            frame = units.count == 1 ? first : try Self.superframe(units)
            keyframe = try VPXKeyframe(vp9: first[...])
        }
        var tags: [[UInt8]] = []
        if let keyframe {
            var record: [UInt8] = []
            try keyframe.record.write(into: &record)
            if record != sentRecord {
                tags.append(try data(packetType: .sequenceStart, frameType: .keyFrame, payload: record[...]))
                sentRecord = record
            }
        }
        guard sentRecord != nil else { return .beforeKeyframe }
        tags.append(try data(packetType: .codedFrames, frameType: keyframe != nil ? .keyFrame : .interFrame, payload: frame[...]))
        return .tags(tags)
    }

    /// VP9 frames as one superframe: the frames, then an index of their sizes between two marker bytes
    /// (0b110, the size's octets less one, the frame count less one).
    static func superframe(_ frames: [[UInt8]]) throws -> [UInt8] {
        guard frames.count <= 8 else {
            throw MediaFormatError.limitExceeded(what: "VP9 frames in a picture", value: frames.count, limit: 8)
        }
        let largest = frames.map(\.count).max() ?? 0
        let octets = largest < 1 << 8 ? 1 : largest < 1 << 16 ? 2 : largest < 1 << 24 ? 3 : 4
        let marker = UInt8(0xC0 | (octets - 1) << 3 | (frames.count - 1))
        var out = Array(frames.joined())
        out.append(marker)
        for frame in frames {
            for index in 0..<octets { out.append(UInt8(truncatingIfNeeded: frame.count >> (8 * index))) }
        }
        out.append(marker)
        return out
    }

    private func data(packetType: FLVVideoPacketType, frameType: FLVVideoFrameType, payload: ArraySlice<UInt8>) throws -> [UInt8] {
        try FLVVideoData(frameType: frameType, packetType: packetType,
                         tracks: [FLVVideoTrack(codec: .fourCC(codec == .vp8 ? .vp08 : .vp09), compositionTime: 0, payload: payload)]).serialized()
    }
}
