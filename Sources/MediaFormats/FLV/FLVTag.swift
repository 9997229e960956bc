// Adobe Flash Video File Format Specification v10.1, §E.4.1 FLV Tag (header + Data).

/// One tag read from an FLV stream: its header, its data bytes and where it started.
public struct FLVTag: Sendable, Equatable {
    /// The 11-byte tag header.
    public let header: FLVTagHeader
    /// The tag data (DataSize bytes): tag-type header, then payload.
    public let data: [UInt8]
    /// Byte offset of the tag header from the start of the stream.
    public let offset: Int

    /// The VideoTagHeader at the start of a video tag's data.
    public func videoTagHeader() throws -> FLVVideoTagHeader {
        try requireType(.video)
        var reader = ByteReader(data)
        return try FLVVideoTagHeader(parsing: &reader)
    }

    /// The AudioTagHeader at the start of an audio tag's data.
    public func audioTagHeader() throws -> FLVAudioTagHeader {
        try requireType(.audio)
        var reader = ByteReader(data)
        return try FLVAudioTagHeader(parsing: &reader)
    }

    /// The data of a video tag as a typed value, legacy or enhanced (ex-header, multitrack); payloads are slices of `data`.
    public func videoData() throws -> FLVVideoData {
        try requireType(.video)
        return try FLVVideoData(parsing: data)
    }

    /// The data of an audio tag as a typed value, legacy or enhanced (ex-header, multitrack); payloads are slices of `data`.
    public func audioData() throws -> FLVAudioData {
        try requireType(.audio)
        return try FLVAudioData(parsing: data)
    }

    /// The AMF0 name and value of a script data tag.
    public func scriptData() throws -> FLVScriptData {
        try requireType(.scriptData)
        var reader = ByteReader(data)
        return try FLVScriptData(parsing: &reader)
    }

    /// The bytes after the audio or video tag header (avcC, NAL units, AudioSpecificConfig, an AAC frame).
    public func payload() throws -> ArraySlice<UInt8> {
        switch header.tagType {
        case .video: return data[(try videoTagHeader().byteCount)...]
        case .audio: return data[(try audioTagHeader().byteCount)...]
        case .scriptData: return data[...]
        }
    }

    private func requireType(_ type: FLVTagType) throws {
        guard header.tagType == type else {
            throw MediaFormatError.invalid(
                structure: "FLV tag", reason: "tag at offset \(offset) is \(header.tagType), not \(type)")
        }
    }
}
