// AV1 Codec ISO Media File Format Binding v1.2.0 §2.4 (a sample: the OBUs of one temporal unit, each with its size
// field, no temporal delimiter or tile list) and §2.3 (av1C), as Enhanced RTMP's av01 carries them; the AOMedia AV1 RTP
// payload format §5 (what a sender leaves out: size fields, temporal delimiters).

/// One AV1 RTP stream's temporal units made Enhanced RTMP av01 tags: a SequenceStart with the av1C of each new sequence
/// header, then CodedFrames (AV1 has no composition time), from the first shown key frame with a sequence header.
struct RTPAV1Track: Sendable {
    /// The av1C last sent; nil before the first key frame.
    private var sentRecord: [UInt8]?
    /// The stream's reduced_still_picture_header, from its last sequence header.
    private var reducedStillPictureHeader = false

    /// The tags of one temporal unit's OBUs (each as it came in its RTP element, with or without its size field).
    mutating func convert(obus: [[UInt8]]) throws -> TSToFLVVideoTrack.Output {
        var sample: [UInt8] = []
        var sequenceHeader: [UInt8]?
        for bytes in obus {
            var reader = ByteReader(bytes)
            let obu = try AV1OBU(parsing: &reader)
            switch obu.header.type {
            case .temporalDelimiter, .tileList, .padding:
                continue
            case .sequenceHeader:
                var written: [UInt8] = []
                try obu.write(into: &written)
                sequenceHeader = written
                sample += written
            default:
                try obu.write(into: &sample)
            }
        }
        guard !sample.isEmpty else { return .empty }
        let unit = try AV1TemporalUnit(parsing: sample, reducedStillPictureHeader: reducedStillPictureHeader)
        if let header = unit.sequenceHeader { reducedStillPictureHeader = header.reducedStillPictureHeader }
        var tags: [[UInt8]] = []
        if unit.isKeyframe, let sequenceHeader {
            let record = try AV1CodecConfigurationRecord(sequenceHeaderOBU: sequenceHeader).serialized()
            if record != sentRecord {
                tags.append(try Self.data(packetType: .sequenceStart, frameType: .keyFrame, payload: record[...]))
                sentRecord = record
            }
        }
        guard sentRecord != nil else { return .beforeKeyframe }
        tags.append(try Self.data(packetType: .codedFrames, frameType: unit.isKeyframe ? .keyFrame : .interFrame, payload: sample[...]))
        return .tags(tags)
    }

    private static func data(packetType: FLVVideoPacketType, frameType: FLVVideoFrameType, payload: ArraySlice<UInt8>) throws -> [UInt8] {
        try FLVVideoData(frameType: frameType, packetType: packetType,
                         tracks: [FLVVideoTrack(codec: .fourCC(.av01), compositionTime: 0, payload: payload)]).serialized()
    }
}
