import MediaEngine
import MediaFormats
import JobDocument

/// `sluice probe` fields of the Enhanced RTMP codecs: HEVC (hvcC and SPS), AV1 (av1C and sequence header), Opus (OpusHead).
extension ProbeFormatting {
    static func enhancedFields(_ stream: ProbedStream) -> [String: JSONValue] {
        var fields: [String: JSONValue] = [:]
        if let record = stream.hevcConfiguration {
            let level = record.profileTierLevel
            fields["profile_idc"] = .number(Double(level.profileIdc))
            fields["tier"] = .string(level.tierFlag ? "high" : "main")
            fields["level_idc"] = .number(Double(level.levelIdc))
            fields["chroma_format_idc"] = .number(Double(record.chromaFormatIdc))
            fields["bit_depth"] = .number(Double(record.bitDepthLuma))
            fields["bit_depth_chroma"] = .number(Double(record.bitDepthChroma))
        }
        if let sps = stream.hevcSequenceParameterSet {
            fields["width"] = .number(Double(sps.width))
            fields["height"] = .number(Double(sps.height))
            fields["chroma_format_idc"] = .number(Double(sps.chromaFormatIdc))
            fields["bit_depth"] = .number(Double(sps.bitDepthLuma))
            fields["bit_depth_chroma"] = .number(Double(sps.bitDepthChroma))
            fields["fps"] = sps.frameRate.map { .number(($0 * 1000).rounded() / 1000) } ?? .null
        }
        if let record = stream.av1Configuration {
            fields["profile"] = .number(Double(record.seqProfile))
            fields["level_idx"] = .number(Double(record.seqLevelIdx0))
            fields["tier"] = .string(record.seqTier0 ? "high" : "main")
            fields["bit_depth"] = .number(Double(record.twelveBit ? 12 : record.highBitdepth ? 10 : 8))
            fields["monochrome"] = .bool(record.monochrome)
            fields["chroma_subsampling"] = .string(chroma(x: record.chromaSubsamplingX, y: record.chromaSubsamplingY, monochrome: record.monochrome))
        }
        if let header = stream.av1SequenceHeader {
            fields["width"] = .number(Double(header.maxFrameWidth))
            fields["height"] = .number(Double(header.maxFrameHeight))
            fields["bit_depth"] = .number(Double(header.colorConfig.bitDepth))
            fields["fps"] = header.frameRate.map { .number(($0 * 1000).rounded() / 1000) } ?? .null
        }
        if let opus = stream.opusHeader {
            fields["channels"] = .number(Double(opus.channelCount))
            fields["pre_skip"] = .number(Double(opus.preSkip))
            fields["input_sample_rate"] = .number(Double(opus.inputSampleRate))
            fields["channel_mapping_family"] = .number(Double(opus.channelMappingFamily))
        }
        return fields
    }

    static func enhancedText(_ stream: ProbedStream) -> String {
        var line = ""
        if let record = stream.hevcConfiguration {
            let level = record.profileTierLevel
            let sps = stream.hevcSequenceParameterSet
            if let sps { line += " \(sps.width)x\(sps.height)" }
            line += " profile_idc \(level.profileIdc) \(level.tierFlag ? "high" : "main") tier level_idc \(level.levelIdc)"
            line += " chroma \(sps?.chromaFormatIdc ?? Int(record.chromaFormatIdc)) \(sps?.bitDepthLuma ?? record.bitDepthLuma)-bit"
            if let fps = sps?.frameRate { line += String(format: " %.3f fps", fps) }
        }
        if let record = stream.av1Configuration {
            let header = stream.av1SequenceHeader
            if let header { line += " \(header.maxFrameWidth)x\(header.maxFrameHeight)" }
            line += " profile \(record.seqProfile) level_idx \(record.seqLevelIdx0) \(record.seqTier0 ? "high" : "main") tier"
            line += " \(chroma(x: record.chromaSubsamplingX, y: record.chromaSubsamplingY, monochrome: record.monochrome))"
            line += " \(header?.colorConfig.bitDepth ?? (record.twelveBit ? 12 : record.highBitdepth ? 10 : 8))-bit"
            if let fps = header?.frameRate { line += String(format: " %.3f fps", fps) }
        }
        if let opus = stream.opusHeader {
            line += " channels \(opus.channelCount) pre_skip \(opus.preSkip) input \(opus.inputSampleRate) Hz"
        }
        return line
    }

    /// AV1's subsampling flags as the usual notation.
    private static func chroma(x: Bool, y: Bool, monochrome: Bool) -> String {
        if monochrome { return "4:0:0" }
        switch (x, y) {
        case (true, true): return "4:2:0"
        case (true, false): return "4:2:2"
        default: return "4:4:4"
        }
    }
}
