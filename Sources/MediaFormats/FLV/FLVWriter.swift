// Adobe Flash Video File Format Specification v10.1, §E.3 FLV File Body (tags, each followed by PreviousTagSize).

/// Appends FLV bytes to a caller's buffer: no I/O, no state. Every tag is followed by its PreviousTagSize.
/// A call that throws appends nothing.
public struct FLVWriter: Sendable {
    /// A writer.
    public init() {}

    /// Appends the 9-byte FLV header and PreviousTagSize0 (0).
    public func writeFileHeader(hasAudio: Bool, hasVideo: Bool, into out: inout [UInt8]) {
        FLVHeader(hasAudio: hasAudio, hasVideo: hasVideo).write(into: &out)
        out.appendUInt32(0)
    }

    /// Appends a script data tag at timestamp 0 and returns, keyed by name, the byte offset (relative to
    /// where this call started appending) of each top-level numeric property's 8-byte big-endian double,
    /// so a seekable output can patch `duration` and `filesize` in place.
    @discardableResult
    public func writeScriptData(name: String = "onMetaData", value: AMF0Value, into out: inout [UInt8]) throws
        -> [String: Int]
    {
        var body: [UInt8] = []
        try AMF0Value.string(name).write(into: &body)
        let valueStart = body.count
        let valueOffsets = try value.writeRecordingNumberOffsets(into: &body)
        try Self.checkDataSize(body.count)
        let headerStart = FLVLimits.tagHeaderSize
        reserve(FLVLimits.tagHeaderSize + body.count + FLVLimits.previousTagSizeSize, in: &out)
        FLVTagHeader(tagType: .scriptData, dataSize: body.count, timestamp: 0).write(into: &out)
        out.append(contentsOf: body)
        out.appendUInt32(UInt32(FLVLimits.tagHeaderSize + body.count))
        return valueOffsets.mapValues { headerStart + valueStart + $0 }
    }

    /// Appends onMetaData built from `metadata`; see `writeScriptData(name:value:into:)` for the offsets.
    @discardableResult
    public func writeMetadata(_ metadata: FLVMetadata, into out: inout [UInt8]) throws -> [String: Int] {
        try writeScriptData(name: "onMetaData", value: metadata.amf0Value, into: &out)
    }

    /// Appends an AVC video tag. `timestamp` is the DTS in ms on the job's unbounded timeline (≥ 0), written
    /// modulo 2^32 (`FLVTimestamp`; the upper 8 bits go to TimestampExtended); `compositionTime` is PTS − DTS
    /// in ms (signed 24 bits).
    public func writeVideo(
        timestamp: Int64, compositionTime: Int32, isKeyframe: Bool, packetType: FLVAVCPacketType,
        payload: UnsafeRawBufferPointer, into out: inout [UInt8]
    ) throws {
        let tagTimestamp = try Self.checkTimestamp(timestamp)
        guard FLVLimits.compositionTimeRange.contains(compositionTime) else {
            throw MediaFormatError.invalid(
                structure: "FLV video tag header",
                reason: "composition time \(compositionTime) ms is outside the signed 24-bit range "
                    + "\(FLVLimits.compositionTimeRange.lowerBound)...\(FLVLimits.compositionTimeRange.upperBound)")
        }
        let dataSize = FLVLimits.avcVideoTagHeaderSize + payload.count
        try Self.checkDataSize(dataSize)
        reserve(FLVLimits.tagHeaderSize + dataSize + FLVLimits.previousTagSizeSize, in: &out)
        FLVTagHeader(tagType: .video, dataSize: dataSize, timestamp: tagTimestamp).write(into: &out)
        FLVVideoTagHeader(
            frameType: isKeyframe ? .keyFrame : .interFrame, avcPacketType: packetType,
            compositionTime: compositionTime
        ).write(into: &out)
        out.append(contentsOf: payload)
        out.appendUInt32(UInt32(FLVLimits.tagHeaderSize + dataSize))
    }

    /// `writeVideo` with an array payload.
    public func writeVideo(
        timestamp: Int64, compositionTime: Int32, isKeyframe: Bool, packetType: FLVAVCPacketType,
        payload: [UInt8], into out: inout [UInt8]
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
        timestamp: Int64, aacPacketType: FLVAACPacketType, payload: UnsafeRawBufferPointer, into out: inout [UInt8]
    ) throws {
        let tagTimestamp = try Self.checkTimestamp(timestamp)
        let dataSize = FLVLimits.aacAudioTagHeaderSize + payload.count
        try Self.checkDataSize(dataSize)
        reserve(FLVLimits.tagHeaderSize + dataSize + FLVLimits.previousTagSizeSize, in: &out)
        FLVTagHeader(tagType: .audio, dataSize: dataSize, timestamp: tagTimestamp).write(into: &out)
        FLVAudioTagHeader(aacPacketType: aacPacketType).write(into: &out)
        out.append(contentsOf: payload)
        out.appendUInt32(UInt32(FLVLimits.tagHeaderSize + dataSize))
    }

    /// `writeAudio` with an array payload.
    public func writeAudio(
        timestamp: Int64, aacPacketType: FLVAACPacketType, payload: [UInt8], into out: inout [UInt8]
    ) throws {
        try payload.withUnsafeBytes { buffer in
            try writeAudio(timestamp: timestamp, aacPacketType: aacPacketType, payload: buffer, into: &out)
        }
    }

    /// Appends a video tag of any codec, legacy or enhanced (`FLVVideoData` writes the header its tracks' codecs
    /// name: hvc1/av01/vp09 ex-headers, multitrack, ModEx); `timestamp` as for the AVC `writeVideo`.
    public func writeVideo(timestamp: Int64, data: FLVVideoData, into out: inout [UInt8]) throws {
        try writeTag(.video, timestamp: timestamp, into: &out) { try data.write(into: &$0) }
    }

    /// Appends an audio tag of any codec, legacy or enhanced (Opus, AC-3, FLAC … ex-headers, multitrack);
    /// `timestamp` as for `writeAudio`.
    public func writeAudio(timestamp: Int64, data: FLVAudioData, into out: inout [UInt8]) throws {
        try writeTag(.audio, timestamp: timestamp, into: &out) { try data.write(into: &$0) }
    }

    /// Writes the tag data with `body` after a placeholder header, then fills in the header once the size is known;
    /// on any error `out` is left as it was.
    private func writeTag(_ type: FLVTagType, timestamp: Int64, into out: inout [UInt8],
                          _ body: (inout [UInt8]) throws -> Void) throws {
        let tagTimestamp = try Self.checkTimestamp(timestamp)
        let start = out.count
        do {
            out.append(contentsOf: repeatElement(0, count: FLVLimits.tagHeaderSize))
            try body(&out)
            let dataSize = out.count - start - FLVLimits.tagHeaderSize
            try Self.checkDataSize(dataSize)
            var header: [UInt8] = []
            FLVTagHeader(tagType: type, dataSize: dataSize, timestamp: tagTimestamp).write(into: &header)
            out.replaceSubrange(start..<(start + FLVLimits.tagHeaderSize), with: header)
            out.appendUInt32(UInt32(FLVLimits.tagHeaderSize + dataSize))
        } catch {
            out.removeSubrange(start...)
            throw error
        }
    }

    // Array.reserveCapacity grows to exactly the request, so calling it per tag on a buffer that keeps
    // growing would copy quadratically; grow geometrically instead, and only when needed.
    private func reserve(_ count: Int, in out: inout [UInt8]) {
        let needed = out.count + count
        if out.capacity < needed { out.reserveCapacity(Swift.max(needed, out.capacity * 2)) }
    }

    /// A timeline that starts at 0 never goes negative; past 2^32 ms it wraps, as RTMP does.
    private static func checkTimestamp(_ timestamp: Int64) throws -> UInt32 {
        guard timestamp >= 0 else {
            throw MediaFormatError.invalid(structure: "FLV tag", reason: "negative timestamp \(timestamp) ms")
        }
        return FLVTimestamp(milliseconds: timestamp).rawValue
    }

    private static func checkDataSize(_ size: Int) throws {
        guard size <= FLVLimits.maxTagDataSize else {
            throw MediaFormatError.limitExceeded(what: "FLV tag data size", value: size, limit: FLVLimits.maxTagDataSize)
        }
    }
}
