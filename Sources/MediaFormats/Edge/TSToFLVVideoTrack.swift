// ISO/IEC 14496-15 (2019) §5.3 (AVC) and §8.3 (HEVC) samples and configuration records as FLV carries them: legacy
// AVC tags (Adobe FLV v10.1 §E.4.3.1, AVCPacketType 0 and 1) and Enhanced RTMP v2 hvc1 tags (SequenceStart and
// CodedFrames with an SI24 composition time), made from the Annex B access units of an MPEG-TS video stream.

/// One TS video stream (H.264 or HEVC) turned into FLV video tag data.
///
/// Parameter sets are taken out of the frames (`AnnexBToAVCCConverter`, `AnnexBToHVCCConverter`) and sent as a
/// sequence header before the first frame and again before the frame whose SPS/PPS (VPS) changed; the decoded
/// pictures are the same as with in-band copies, and FLV's receivers (FFmpeg's flvdec, players) expect the record.
/// Nothing is sent before the first keyframe whose parameter sets are known.
struct TSToFLVVideoTrack: Sendable {
    private enum Converter: Sendable {
        case h264(AnnexBToAVCCConverter)
        case hevc(AnnexBToHVCCConverter)
    }

    /// What one access unit gave.
    enum Output: Sendable, Equatable {
        /// Tag data to send, in order (a sequence header, then the frame).
        case tags([[UInt8]])
        /// A frame before the first keyframe with parameter sets: skipped.
        case beforeKeyframe
        /// Only parameter sets or delimiters: nothing to send.
        case empty
    }

    let pid: UInt16
    let codec: TSStreamCodec
    private var converter: Converter
    /// The record last sent; nil before the first.
    private var sentRecord: [UInt8]?
    /// A parameter set changed since the record was last looked at.
    private var parameterSetsChanged = false

    /// A track for `codec`, nil when it is not H.264 or HEVC.
    init?(pid: UInt16, codec: TSStreamCodec) {
        switch codec {
        case .h264: converter = .h264(AnnexBToAVCCConverter())
        case .hevc: converter = .hevc(AnnexBToHVCCConverter())
        default: return nil
        }
        self.pid = pid
        self.codec = codec
    }

    /// The tag data for one Annex B access unit whose PTS − DTS is `compositionTime` ms. Throws on NAL units or
    /// parameter sets that cannot be read, or a composition time outside SI24.
    mutating func convert(_ accessUnit: [UInt8], compositionTime: Int32) throws -> Output {
        let sample: [UInt8]
        let conversion: AVCCConversion
        switch converter {
        case var .h264(annexB):
            (sample, conversion) = try annexB.convert(accessUnit)
            converter = .h264(annexB)
        case var .hevc(annexB):
            (sample, conversion) = try annexB.convert(accessUnit)
            converter = .hevc(annexB)
        }
        return try tags(sample, conversion, compositionTime: compositionTime)
    }

    /// `convert` for an access unit already split into NAL units (RTP's), with no start codes to add and scan again.
    mutating func convert(nalUnits: [[UInt8]], compositionTime: Int32) throws -> Output {
        var sample: [UInt8] = []
        let conversion: AVCCConversion
        switch converter {
        case var .h264(annexB):
            converter = .h264(AnnexBToAVCCConverter())
            conversion = try annexB.convert(nalUnits: nalUnits, into: &sample)
            converter = .h264(annexB)
        case var .hevc(annexB):
            converter = .hevc(AnnexBToHVCCConverter())
            conversion = try annexB.convert(nalUnits: nalUnits, into: &sample)
            converter = .hevc(annexB)
        }
        return try tags(sample, conversion, compositionTime: compositionTime)
    }

    private mutating func tags(_ sample: [UInt8], _ conversion: AVCCConversion, compositionTime: Int32) throws -> Output {
        if conversion.parameterSetsChanged { parameterSetsChanged = true }
        guard !sample.isEmpty else { return .empty }
        // The record is rebuilt only after a parameter set changed: not once per frame.
        let record = parameterSetsChanged ? try currentRecord() : nil
        guard sentRecord != nil || (conversion.isKeyframe && record != nil) else { return .beforeKeyframe }
        var tags: [[UInt8]] = []
        if let record {
            parameterSetsChanged = false
            if record != sentRecord {
                tags.append(try data(packetType: .sequenceStart, frameType: .keyFrame, compositionTime: 0, payload: record[...]))
                sentRecord = record
            }
        }
        tags.append(try data(packetType: .codedFrames, frameType: conversion.isKeyframe ? .keyFrame : .interFrame,
                             compositionTime: compositionTime, payload: sample[...]))
        return .tags(tags)
    }

    /// The serialized record of the parameter sets known now; nil until a complete set is known.
    private func currentRecord() throws -> [UInt8]? {
        switch converter {
        case let .h264(annexB): try annexB.record?.serialized()
        case let .hevc(annexB): try annexB.record?.serialized()
        }
    }

    /// Legacy AVC for H.264 (what every RTMP receiver reads), an hvc1 ex-header for HEVC.
    private func data(packetType: FLVVideoPacketType, frameType: FLVVideoFrameType, compositionTime: Int32,
                      payload: ArraySlice<UInt8>) throws -> [UInt8] {
        let codec: FLVVideoCodec = self.codec == .h264 ? .legacy(.avc) : .fourCC(.hvc1)
        return try FLVVideoData(frameType: frameType, packetType: packetType,
                                tracks: [FLVVideoTrack(codec: codec, compositionTime: compositionTime, payload: payload)])
            .serialized()
    }
}
