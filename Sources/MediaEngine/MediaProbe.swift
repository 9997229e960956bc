import MediaFormats
import MediaJob

/// What `sluice probe` reports of one stream. H.264, HEVC, AV1, AAC and Opus fields come from MediaFormats' own parsers
/// (SPS, hvcC, av1C and sequence header, AudioSpecificConfig, OpusHead), not from FFmpeg's.
public struct ProbedStream: Sendable {
    public var index: Int
    public var kind: StreamInfo.Kind
    public var codec: String
    /// The stream's first SPS, when it is H.264 and one was found.
    public var sequenceParameterSet: SequenceParameterSet?
    /// The stream's AudioSpecificConfig, when it is AAC.
    public var audioSpecificConfig: AudioSpecificConfig?
    /// HEVC: the hvcC record (profile, tier, level) and its first SPS (size, chroma, bit depth, VUI timing).
    public var hevcConfiguration: HEVCDecoderConfigurationRecord?
    public var hevcSequenceParameterSet: HEVCSequenceParameterSet?
    /// AV1: the av1C record and the sequence header OBU it carries.
    public var av1Configuration: AV1CodecConfigurationRecord?
    public var av1SequenceHeader: AV1SequenceHeader?
    /// Opus: the ID header (OpusHead).
    public var opusHeader: OpusIDHeader?
    /// Why a field could not be parsed, if one could not.
    public var problem: String?
}

public struct ProbeReport: Sendable {
    public var format: String
    public var durationSeconds: Double?
    public var streams: [ProbedStream]
}

public enum MediaProbe {
    /// Packets read at most to find parameter sets that the container does not hold as extradata.
    public static let maxPacketsRead = 600

    /// Opens the file at `url` (libavformat may open files only), describes every stream, and parses H.264 SPS and
    /// AAC AudioSpecificConfig.
    public static func probe(url: String, options: [String: String] = [:], timeout: Double? = 10, interrupter: Interrupter = Interrupter()) throws -> ProbeReport {
        var options = options
        options["protocol_whitelist"] = "file"
        let input = try MediaInput(url: url, options: options, interrupter: interrupter, timeout: timeout)
        return try describe(input, format: input.formatName, duration: input.durationSeconds)
    }

    /// Pulls (or, with `listens`, waits for a publisher of) the live input `options.inputURL` through the live
    /// engine until its streams are known, and describes them.
    public static func probe(live options: MediaJobOptions, transport: any LiveTransport, interrupter: Interrupter = Interrupter()) throws -> ProbeReport {
        let input = RelayInput(options: options)
        try input.open(on: transport, interrupter: interrupter)
        defer { input.close() }
        return try describe(input, format: "flv (RTMP, the relay engine)", duration: nil)
    }

    private static func describe(_ input: any PacketSource, format: String, duration: Double?) throws -> ProbeReport {
        var streams = input.streams.map { info in
            var probed = ProbedStream(index: info.index, kind: info.kind, codec: info.codecName)
            do {
                if info.codecName == "h264" {
                    probed.sequenceParameterSet = try firstSPS(inExtradata: info.extradata)
                } else if info.codecName == "aac", !info.extradata.isEmpty {
                    probed.audioSpecificConfig = try AudioSpecificConfig(parsing: info.extradata)
                } else {
                    try describeEnhancedCodec(info, into: &probed)
                }
            } catch {
                probed.problem = "\(error)"
            }
            return probed
        }
        func missing(_ stream: ProbedStream) -> Bool {
            stream.problem == nil
                && ((stream.codec == "h264" && stream.sequenceParameterSet == nil)
                    || (stream.codec == "aac" && stream.audioSpecificConfig == nil))
        }
        var read = 0
        while streams.contains(where: missing), read < maxPacketsRead, let packet = try input.readPacket() {
            read += 1
            guard let position = streams.firstIndex(where: { $0.index == packet.streamIndex }), missing(streams[position]) else { continue }
            do {
                if streams[position].codec == "h264" {
                    streams[position].sequenceParameterSet = try firstSPS(inAnnexB: packet.data)
                } else if AnnexB.hasStartCode(packet.data) == false, packet.data.count >= ADTSHeader.lengthWithoutCRC {
                    streams[position].audioSpecificConfig = try ADTSHeader(parsing: packet.data).audioSpecificConfig
                }
            } catch {
                streams[position].problem = "\(error)"
            }
        }
        return ProbeReport(format: format, durationSeconds: duration, streams: streams)
    }

    /// HEVC's hvcC and SPS, AV1's av1C and sequence header, Opus's ID header, from the stream's extradata (live inputs
    /// carry the same records in their sequence starts). HEVC in Annex B extradata (MPEG-TS) gives none.
    static func describeEnhancedCodec(_ info: StreamInfo, into probed: inout ProbedStream) throws {
        switch info.codecName {
        case "hevc" where HEVCDecoderConfigurationRecord.isHVCC(info.extradata):
            let record = try HEVCDecoderConfigurationRecord(parsing: info.extradata)
            probed.hevcConfiguration = record
            probed.hevcSequenceParameterSet = try record.sequenceParameterSet()
        case "av1" where !info.extradata.isEmpty:
            let record = try AV1CodecConfigurationRecord(parsing: info.extradata)
            probed.av1Configuration = record
            probed.av1SequenceHeader = try record.sequenceHeader()
        case "opus" where !info.extradata.isEmpty:
            probed.opusHeader = try OpusIDHeader(parsing: info.extradata)
        default:
            break
        }
    }

    /// The first SPS of an avcC record or of Annex B parameter sets; nil when there is none.
    static func firstSPS(inExtradata extradata: [UInt8]) throws -> SequenceParameterSet? {
        guard !extradata.isEmpty else { return nil }
        if AVCDecoderConfigurationRecord.isAVCC(extradata) {
            let record = try AVCDecoderConfigurationRecord(parsing: extradata)
            return try record.sequenceParameterSets.first.map { try SequenceParameterSet(parsing: $0) }
        }
        return try firstSPS(inAnnexB: extradata)
    }

    static func firstSPS(inAnnexB bytes: [UInt8]) throws -> SequenceParameterSet? {
        for nal in AnnexB.nalUnits(in: bytes) {
            guard let first = nal.first, NALUnitHeader(first).nalUnitType == .sequenceParameterSet else { continue }
            return try SequenceParameterSet(parsing: nal)
        }
        return nil
    }
}
