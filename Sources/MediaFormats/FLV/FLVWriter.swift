// Adobe Flash Video File Format Specification v10.1, §E.3 FLV File Body (tags, each followed by PreviousTagSize).

/// Builds FLV tags into a caller's destination (`FLVTagDestination`: a file's bytes, each tag followed by its
/// PreviousTagSize, or one message per tag): no I/O, no state. The one writer of FLV tags in the project. A call that
/// throws appends nothing.
public struct FLVWriter: Sendable {
    /// A writer.
    public init() {}

    /// Appends the 9-byte FLV header and PreviousTagSize0 (0).
    public func writeFileHeader(hasAudio: Bool, hasVideo: Bool, into out: inout [UInt8]) {
        FLVHeader(hasAudio: hasAudio, hasVideo: hasVideo).write(into: &out)
        out.appendUInt32(0)
    }

    /// Appends a script data tag at timestamp 0 and returns, keyed by name, the byte offset (relative to
    /// where this call started appending, in an FLV file's bytes) of each top-level numeric property's 8-byte
    /// big-endian double, so a seekable output can patch `duration` and `filesize` in place.
    @discardableResult
    public func writeScriptData(name: String = "onMetaData", value: AMF0Value,
                                into out: inout some FLVTagDestination) throws -> [String: Int] {
        var body: [UInt8] = []
        try AMF0Value.string(name).write(into: &body)
        let valueStart = body.count
        let valueOffsets = try value.writeRecordingNumberOffsets(into: &body)
        try out.appendTag(.scriptData, timestamp: 0, dataSize: body.count) { $0.append(contentsOf: body) }
        return valueOffsets.mapValues { FLVLimits.tagHeaderSize + valueStart + $0 }
    }

    /// Appends onMetaData built from `metadata`; see `writeScriptData(name:value:into:)` for the offsets.
    @discardableResult
    public func writeMetadata(_ metadata: FLVMetadata, into out: inout some FLVTagDestination) throws -> [String: Int] {
        try writeScriptData(name: "onMetaData", value: metadata.amf0Value, into: &out)
    }

    /// Appends an AVC video tag. `timestamp` is the DTS in ms on the job's unbounded timeline (≥ 0), written
    /// modulo 2^32 (`FLVTimestamp`; the upper 8 bits go to TimestampExtended); `compositionTime` is PTS − DTS
    /// in ms (signed 24 bits).
    public func writeVideo(
        timestamp: Int64, compositionTime: Int32, isKeyframe: Bool, packetType: FLVAVCPacketType,
        payload: UnsafeRawBufferPointer, into out: inout some FLVTagDestination
    ) throws {
        let tagTimestamp = try Self.checkTimestamp(timestamp)
        guard FLVLimits.compositionTimeRange.contains(compositionTime) else {
            throw MediaFormatError.invalid(
                structure: "FLV video tag header",
                reason: "composition time \(compositionTime) ms is outside the signed 24-bit range "
                    + "\(FLVLimits.compositionTimeRange.lowerBound)...\(FLVLimits.compositionTimeRange.upperBound)")
        }
        let header = FLVVideoTagHeader(
            frameType: isKeyframe ? .keyFrame : .interFrame, avcPacketType: packetType, compositionTime: compositionTime)
        try out.appendTag(.video, timestamp: tagTimestamp, dataSize: FLVLimits.avcVideoTagHeaderSize + payload.count) {
            header.write(into: &$0)
            $0.append(contentsOf: payload)
        }
    }

    /// `writeVideo` with an array payload.
    public func writeVideo(
        timestamp: Int64, compositionTime: Int32, isKeyframe: Bool, packetType: FLVAVCPacketType,
        payload: [UInt8], into out: inout some FLVTagDestination
    ) throws {
        try payload.withUnsafeBytes { buffer in
            try writeVideo(
                timestamp: timestamp, compositionTime: compositionTime, isKeyframe: isKeyframe,
                packetType: packetType, payload: buffer, into: &out)
        }
    }

    /// Appends an AAC audio tag (SoundFormat 10, rate 3, size 1, type 1, as the spec requires for AAC);
    /// `timestamp` as for `writeVideo`.
    public func writeAudio(
        timestamp: Int64, aacPacketType: FLVAACPacketType, payload: UnsafeRawBufferPointer,
        into out: inout some FLVTagDestination
    ) throws {
        let tagTimestamp = try Self.checkTimestamp(timestamp)
        try out.appendTag(.audio, timestamp: tagTimestamp, dataSize: FLVLimits.aacAudioTagHeaderSize + payload.count) {
            FLVAudioTagHeader(aacPacketType: aacPacketType).write(into: &$0)
            $0.append(contentsOf: payload)
        }
    }

    /// `writeAudio` with an array payload.
    public func writeAudio(
        timestamp: Int64, aacPacketType: FLVAACPacketType, payload: [UInt8], into out: inout some FLVTagDestination
    ) throws {
        try payload.withUnsafeBytes { buffer in
            try writeAudio(timestamp: timestamp, aacPacketType: aacPacketType, payload: buffer, into: &out)
        }
    }

    /// Appends a video tag of any codec, legacy or enhanced (`FLVVideoData` writes the header its tracks' codecs
    /// name: hvc1/av01/vp09 ex-headers, multitrack, ModEx); `timestamp` as for the AVC `writeVideo`.
    public func writeVideo(timestamp: Int64, data: FLVVideoData, into out: inout some FLVTagDestination) throws {
        try out.appendTag(.video, timestamp: try Self.checkTimestamp(timestamp), dataSize: nil) { try data.write(into: &$0) }
    }

    /// Appends an audio tag of any codec, legacy or enhanced (Opus, AC-3, FLAC … ex-headers, multitrack);
    /// `timestamp` as for `writeAudio`.
    public func writeAudio(timestamp: Int64, data: FLVAudioData, into out: inout some FLVTagDestination) throws {
        try out.appendTag(.audio, timestamp: try Self.checkTimestamp(timestamp), dataSize: nil) { try data.write(into: &$0) }
    }

    /// Appends a tag whose data is already an FLV tag body (the payload of an RTMP audio, video or data message is
    /// one), at `timestamp` ms modulo 2^32 (its upper 8 bits go to TimestampExtended). A body over the 24-bit size
    /// throws.
    public func writeTag(_ type: FLVTagType, timestamp: UInt32, data: ArraySlice<UInt8>,
                         into out: inout some FLVTagDestination) throws {
        try out.appendTag(type, timestamp: timestamp, dataSize: data.count) { $0.append(contentsOf: data) }
    }

    /// A timeline that starts at 0 never goes negative; past 2^32 ms it wraps, as RTMP does.
    private static func checkTimestamp(_ timestamp: Int64) throws -> UInt32 {
        guard timestamp >= 0 else {
            throw MediaFormatError.invalid(structure: "FLV tag", reason: "negative timestamp \(timestamp) ms")
        }
        return FLVTimestamp(milliseconds: timestamp).rawValue
    }
}
