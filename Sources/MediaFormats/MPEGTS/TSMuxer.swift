// ISO/IEC 13818-1 (2019) §2.4 transport stream: one program (PAT → PMT → elementary streams), PES per access unit.
// Timing rules: PAT and PMT before the first PES, again every `tableInterval` of stream time and before every video
// keyframe (§2.4.4, so a receiver can join there); a PCR on the first packet of each PES of the PCR PID and, between
// them, on a PCR-only packet once `pcrInterval` has passed (§2.7.2 allows at most 100 ms between two PCRs);
// random_access_indicator on keyframes (§2.4.3.5).

/// Writes elementary-stream access units as a single-program transport stream, appending whole 188-byte packets to
/// a caller's buffer. No I/O, no clock: time is the access units' DTS. A call that throws appends nothing.
public struct TSMuxer: Sendable {
    /// The PID FFmpeg and most muxers give the first video stream.
    public static let defaultVideoPID: UInt16 = 0x100
    /// The PID FFmpeg and most muxers give the first audio stream.
    public static let defaultAudioPID: UInt16 = 0x101
    /// The PMT's default PID.
    public static let defaultPMTPID: UInt16 = 0x1000
    /// PIDs 0x0000...0x000F are reserved for tables (§2.4.3.3, Table 2-3); 0x1FFF is the null packet.
    public static let elementaryPIDRange: ClosedRange<UInt16> = 0x0010...0x1FFE
    /// 100 ms at 90 kHz: the default table interval.
    public static let defaultInterval: Int64 = 9000
    /// 70 ms at 90 kHz: PCRs go out with access units, so the gap between two can reach this plus one access unit's
    /// spacing; 70 ms keeps it under the 100 ms of §2.7.2 for audio frames up to 30 ms apart.
    public static let defaultPCRInterval: Int64 = 6300

    /// One elementary stream of the program.
    public struct Stream: Sendable, Equatable {
        /// elementary_PID.
        public var pid: UInt16
        /// The codec (`.other` cannot be muxed).
        public var codec: TSStreamCodec
        /// Parameter sets known before the stream starts (avcC, hvcC or Annex B), inserted before keyframes that
        /// lack them; empty when they come in band.
        public var extradata: [UInt8]

        public init(pid: UInt16, codec: TSStreamCodec, extradata: [UInt8] = []) {
            self.pid = pid
            self.codec = codec
            self.extradata = extradata
        }

        /// A video stream on the default video PID.
        public static func video(_ codec: TSStreamCodec, extradata: [UInt8] = []) -> Stream {
            Stream(pid: defaultVideoPID, codec: codec, extradata: extradata)
        }

        /// An audio stream on the default audio PID.
        public static func audio(_ codec: TSStreamCodec) -> Stream { Stream(pid: defaultAudioPID, codec: codec) }
    }

    /// The program and its timing rules.
    public struct Configuration: Sendable, Equatable {
        /// The elementary streams, in PMT order.
        public var streams: [Stream]
        /// program_number.
        public var programNumber: UInt16 = 1
        /// The PMT's PID.
        public var pmtPID: UInt16 = TSMuxer.defaultPMTPID
        /// transport_stream_id.
        public var transportStreamID: UInt16 = 1
        /// PAT and PMT repeat at least this often (90 kHz units of stream time).
        public var tableInterval: Int64 = TSMuxer.defaultInterval
        /// A PCR is written with the first access unit this long (90 kHz units of stream time) after the last one.
        public var pcrInterval: Int64 = TSMuxer.defaultPCRInterval
        /// How far the PCR runs behind the DTS of the access unit it is written with (a receiver's buffering time).
        public var pcrLead: Int64 = 0

        public init(streams: [Stream]) { self.streams = streams }
    }

    /// One access unit to write.
    public struct AccessUnit: Sendable {
        /// The stream's PID.
        public var pid: UInt16
        /// Presentation time, 90 kHz; written modulo 2^33.
        public var pts: Int64
        /// Decoding time, 90 kHz; nil when equal to `pts` (audio, or video without reordering).
        public var dts: Int64?
        /// A random access point (also detected from IDR/IRAP NAL units for video).
        public var isKeyframe: Bool
        /// Annex B for video, one raw AAC frame (no ADTS header) for AAC, one Opus packet for Opus.
        public var payload: [UInt8]
        /// AAC only: the configuration the ADTS header is written from.
        public var audioSpecificConfig: AudioSpecificConfig?
        /// Opus only: samples (48 kHz) to trim at the start and end of the decoded packet.
        public var opusTrim: (start: UInt16?, end: UInt16?)

        public init(pid: UInt16, pts: Int64, dts: Int64? = nil, isKeyframe: Bool = false, payload: [UInt8],
                    audioSpecificConfig: AudioSpecificConfig? = nil, opusTrim: (start: UInt16?, end: UInt16?) = (nil, nil)) {
            self.pid = pid
            self.pts = pts
            self.dts = dts
            self.isKeyframe = isKeyframe
            self.payload = payload
            self.audioSpecificConfig = audioSpecificConfig
            self.opusTrim = opusTrim
        }
    }

    /// The configuration in use.
    public let configuration: Configuration
    /// The PID whose packets carry the PCR: the first video stream, else the first stream.
    public let pcrPID: UInt16
    private let pat: PSISection
    private let pmt: PSISection
    private var packetizer = TSPacketizer()
    private var videoPreparers: [UInt16: TSVideoAccessUnitPreparer] = [:]
    private var lastTablesTime: Int64?
    private var lastPCR: Int64?
    /// The PMT's version_number (5 bits), advanced by `replaceProgram(with:)`.
    private let pmtVersion: UInt8

    /// A muxer for `configuration`; PIDs must be distinct, outside the reserved range and apart from the PMT's.
    public init(configuration: Configuration) throws { try self.init(configuration: configuration, pmtVersion: 0) }

    private init(configuration: Configuration, pmtVersion: UInt8) throws {
        let streams = configuration.streams
        guard !streams.isEmpty else {
            throw MediaFormatError.invalid(structure: "TS muxer configuration", reason: "no elementary streams")
        }
        var pids: Set<UInt16> = [configuration.pmtPID]
        guard Self.elementaryPIDRange.contains(configuration.pmtPID) else {
            throw MediaFormatError.invalid(structure: "TS muxer configuration", reason: "PMT PID 0x\(String(configuration.pmtPID, radix: 16)) is reserved")
        }
        for stream in streams {
            guard Self.elementaryPIDRange.contains(stream.pid), pids.insert(stream.pid).inserted else {
                throw MediaFormatError.invalid(
                    structure: "TS muxer configuration", reason: "PID 0x\(String(stream.pid, radix: 16)) is reserved or used twice")
            }
            if case .other = stream.codec {
                throw MediaFormatError.unsupported(structure: "TS muxer configuration", reason: "\(stream.codec) is not muxed")
            }
        }
        self.configuration = configuration
        pcrPID = (streams.first(where: \.codec.isVideo) ?? streams[0]).pid
        pat = ProgramAssociationTable(
            transportStreamID: configuration.transportStreamID,
            programs: [.init(programNumber: configuration.programNumber, pid: configuration.pmtPID)]).section
        self.pmtVersion = pmtVersion
        pmt = try ProgramMapTable(
            programNumber: configuration.programNumber, version: pmtVersion, pcrPID: pcrPID,
            streams: streams.map { ProgramMapTable.ElementaryStream(codec: $0.codec, pid: $0.pid) }).section()
        for stream in streams where stream.codec.isVideo {
            videoPreparers[stream.pid] = try TSVideoAccessUnitPreparer(codec: stream.codec, extradata: stream.extradata)
        }
    }

    /// A muxer with default PIDs and intervals for the given streams.
    public init(streams: [Stream]) throws { try self.init(configuration: Configuration(streams: streams)) }

    /// Goes on with the same output but a new program (a codec added or changed): continuity counters and the PCR
    /// carry on, and the PMT takes the next version_number (§2.4.4.9) so receivers read it again; the tables go out
    /// before the next access unit.
    public mutating func replaceProgram(with configuration: Configuration) throws {
        // version_number is 5 bits: it wraps after 31.
        var next = try TSMuxer(configuration: configuration, pmtVersion: (pmtVersion + 1) & 0x1F)
        next.packetizer = packetizer
        next.lastPCR = lastPCR
        self = next
    }

    /// Appends the PAT and PMT now (a receiver joining mid-stream, or a new output).
    public mutating func writeTables(into out: inout [UInt8]) throws {
        try packetizer.write(section: pat, pid: TSPacketHeader.patPID, into: &out)
        try packetizer.write(section: pmt, pid: configuration.pmtPID, into: &out)
    }

    /// Appends the packets of one access unit (preceded by PAT/PMT and a PCR when due).
    public mutating func write(_ accessUnit: AccessUnit, into out: inout [UInt8]) throws {
        guard let stream = configuration.streams.first(where: { $0.pid == accessUnit.pid }) else {
            throw MediaFormatError.invalid(structure: "TS access unit", reason: "PID 0x\(String(accessUnit.pid, radix: 16)) is not in the program")
        }
        let dts = accessUnit.dts ?? accessUnit.pts
        var isKeyframe = accessUnit.isKeyframe
        var payload: [UInt8] = []
        switch stream.codec {
        case .h264, .hevc:
            guard let prepared = try videoPreparers[stream.pid]?.prepare(accessUnit.payload) else { return }
            payload = prepared.bytes
            isKeyframe = isKeyframe || prepared.isKeyframe
        case .aac:
            guard let config = accessUnit.audioSpecificConfig else {
                throw MediaFormatError.invalid(structure: "TS access unit", reason: "an AAC access unit needs its AudioSpecificConfig")
            }
            try ADTSHeader(audioSpecificConfig: config, payloadLength: accessUnit.payload.count).write(into: &payload)
            payload += accessUnit.payload
        case .opus:
            OpusControlHeader(accessUnitSize: accessUnit.payload.count, startTrim: accessUnit.opusTrim.start,
                              endTrim: accessUnit.opusTrim.end).write(into: &payload)
            payload += accessUnit.payload
        case .other:
            return
        }
        var header = PESPacketHeader(
            streamID: stream.codec.streamID, pts: accessUnit.pts,
            dts: accessUnit.dts.flatMap { $0 == accessUnit.pts ? nil : $0 })
        var pes: [UInt8] = []
        try header.write(payloadLength: payload.count, unboundedLength: stream.codec.isVideo, into: &pes)
        pes += payload

        let start = out.count
        do {
            if lastTablesTime.map({ (isKeyframe && stream.codec.isVideo) || !(0..<configuration.tableInterval).contains(dts - $0) }) ?? true {
                try writeTables(into: &out)
                lastTablesTime = dts
            }
            var field = TSAdaptationField(randomAccessIndicator: isKeyframe)
            if stream.pid == pcrPID {
                field.pcr = nextPCR(at: dts)
            } else if lastPCR.map({ dts - configuration.pcrLead - $0 >= configuration.pcrInterval }) ?? true {
                packetizer.writeAdaptationFieldOnly(TSAdaptationField(pcr: nextPCR(at: dts)), pid: pcrPID, into: &out)
            }
            let hasAdaptationContent = field.randomAccessIndicator || field.pcr != nil
            packetizer.write(pes, pid: stream.pid, adaptationField: hasAdaptationContent ? field : nil,
                             stuffing: stream.codec.isVideo ? .adaptationFieldMarkingEnd : .adaptationField, into: &out)
        } catch {
            out.removeSubrange(start...)
            throw error
        }
    }

    /// The PCR for an access unit decoded at `dts`, never behind the last one written.
    private mutating func nextPCR(at dts: Int64) -> ProgramClockReference {
        let value = max(dts.subtractingSaturating(configuration.pcrLead), lastPCR ?? .min)
        lastPCR = value
        return ProgramClockReference(base: value)
    }
}
