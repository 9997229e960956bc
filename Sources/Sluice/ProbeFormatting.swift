import MediaEngine
import MediaFormats
import JobDocument

/// `sluice probe` output: a JSON document (`--json`: the container, then each stream with its parsed fields) and a
/// short text form.
public enum ProbeFormatting {
    public static func json(_ report: ProbeReport) -> JSONValue {
        .object([
            "format": .string(report.format),
            "duration_s": report.durationSeconds.map { .number(($0 * 1000).rounded() / 1000) } ?? .null,
            "streams": .array(report.streams.map(stream)),
        ])
    }

    static func stream(_ stream: ProbedStream) -> JSONValue {
        var fields: [String: JSONValue] = [
            "index": .number(Double(stream.index)),
            "type": .string(stream.kind.rawValue),
            "codec": .string(stream.codec),
        ]
        if let sps = stream.sequenceParameterSet {
            fields["profile_idc"] = .number(Double(sps.profileIdc))
            fields["level_idc"] = .number(Double(sps.levelIdc))
            fields["width"] = .number(Double(sps.width))
            fields["height"] = .number(Double(sps.height))
            fields["chroma_format_idc"] = .number(Double(sps.chromaFormatIdc))
            fields["bit_depth"] = .number(Double(sps.bitDepthLuma))
            fields["frame_mbs_only"] = .bool(sps.frameMbsOnly)
            fields["fps"] = sps.frameRate.map { .number(($0 * 1000).rounded() / 1000) } ?? .null
        }
        if let asc = stream.audioSpecificConfig {
            fields["object_type"] = .number(Double(asc.objectType))
            fields["sample_rate"] = .number(Double(asc.samplingFrequency))
            fields["channels"] = .number(Double(asc.channelConfiguration))
        }
        fields.merge(enhancedFields(stream)) { $1 }
        if let problem = stream.problem { fields["error"] = .string(problem) }
        return .object(fields)
    }

    public static func text(_ report: ProbeReport, name: String) -> String {
        var lines = ["\(name): \(report.format)\(report.durationSeconds.map { String(format: ", %.3f s", $0) } ?? "")"]
        for stream in report.streams {
            var line = "  #\(stream.index) \(stream.kind.rawValue) \(stream.codec)"
            if let sps = stream.sequenceParameterSet {
                line += " \(sps.width)x\(sps.height) profile_idc \(sps.profileIdc) level_idc \(sps.levelIdc)"
                line += " chroma \(sps.chromaFormatIdc) \(sps.bitDepthLuma)-bit\(sps.frameMbsOnly ? "" : " interlaced")"
                if let fps = sps.frameRate { line += String(format: " %.3f fps", fps) }
            }
            if let asc = stream.audioSpecificConfig {
                line += " object_type \(asc.objectType) \(asc.samplingFrequency) Hz channels \(asc.channelConfiguration)"
            }
            line += enhancedText(stream)
            if let problem = stream.problem { line += " (unreadable: \(problem))" }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
