// What TSDemuxer reports: programs as their PMTs describe them, access units, clock references, discontinuities, and
// the errors it recovered from (each also counted in TSDemuxer.Statistics).

/// One access unit taken out of a PES packet.
public struct TSAccessUnit: Sendable, Equatable {
    /// The elementary stream's PID.
    public var pid: UInt16
    /// The codec the PMT named for the PID.
    public var codec: TSStreamCodec
    /// PTS as carried (0 ..< 2^33, 90 kHz); for the second and later audio frames of a PES, the PES PTS plus the
    /// frames before. `TSTimestampUnwrapper` turns these into a monotonic timeline.
    public var pts: Int64?
    /// DTS as carried, nil when the PES had none (then it equals the PTS).
    public var dts: Int64?
    /// H.264 IDR or HEVC IRAP found in the NAL units; every audio frame is one.
    public var isKeyframe: Bool
    /// random_access_indicator was set on the packet that started the PES.
    public var randomAccessIndicator: Bool
    /// Annex B for video (as carried, delimiters included), the raw AAC frame (ADTS header removed), the Opus packet
    /// (control header removed), or the PES payload for other stream types.
    public var payload: [UInt8]
    /// AAC: the configuration the ADTS header described.
    public var audioSpecificConfig: AudioSpecificConfig?
    /// Opus: start_trim and end_trim of the control header (48 kHz samples).
    public var opusTrim: OpusTrim?

    /// Opus trim values.
    public struct OpusTrim: Sendable, Equatable {
        public var start: UInt16?
        public var end: UInt16?
    }

    public init(pid: UInt16, codec: TSStreamCodec, pts: Int64?, dts: Int64?, isKeyframe: Bool,
                randomAccessIndicator: Bool, payload: [UInt8], audioSpecificConfig: AudioSpecificConfig? = nil,
                opusTrim: OpusTrim? = nil) {
        self.pid = pid
        self.codec = codec
        self.pts = pts
        self.dts = dts
        self.isKeyframe = isKeyframe
        self.randomAccessIndicator = randomAccessIndicator
        self.payload = payload
        self.audioSpecificConfig = audioSpecificConfig
        self.opusTrim = opusTrim
    }
}

/// A problem the demuxer recovered from. The stream goes on; what was lost is said here.
public enum TSDemuxerError: Error, Sendable, Equatable {
    /// Bytes between packets that did not start a packet in sync (garbage, a cut, a lost byte).
    case bytesSkipped(count: Int)
    /// A payload packet's continuity_counter skipped: packets were lost and the partial PES or section was dropped.
    case continuityError(pid: UInt16, expected: UInt8, found: UInt8)
    /// A PES grew past `TSDemuxer.maxPESSize` and was dropped.
    case pesTooLarge(pid: UInt16, size: Int, limit: Int)
    /// A PES ended (next unit start or end of input) before the PES_packet_length it declared.
    case truncatedPES(pid: UInt16, declared: Int, received: Int)
    /// A PES without PES_packet_length was open at the end of the stream and its last packet was full, so nothing
    /// showed it was whole (a stream cut at a packet boundary): dropped.
    case unterminatedPES(pid: UInt16, received: Int)
    /// A PES header, ADTS frame or Opus control header could not be read; what could be was kept.
    case malformedPES(pid: UInt16, MediaFormatError)
    /// A PAT or PMT section failed its checks (CRC_32, lengths) and was ignored.
    case malformedSection(pid: UInt16, MediaFormatError)
    /// A packet's adaptation field did not fit the packet; the packet was dropped.
    case malformedPacket(pid: UInt16, MediaFormatError)
    /// transport_error_indicator was set; the packet was dropped.
    case transportError(pid: UInt16)
}

/// What feeding bytes to a `TSDemuxer` produced, in stream order.
public enum TSDemuxerEvent: Sendable, Equatable {
    /// A program's PMT, the first time and whenever it changes.
    case program(ProgramMapTable)
    /// A new PMT version added an elementary stream.
    case streamAdded(pid: UInt16, codec: TSStreamCodec)
    /// A new PMT (or PAT) version removed an elementary stream.
    case streamRemoved(pid: UInt16, codec: TSStreamCodec)
    /// A new PMT version kept a PID but changed its codec; a partial PES of the old codec was dropped.
    case codecChanged(pid: UInt16, from: TSStreamCodec, to: TSStreamCodec)
    /// An access unit.
    case accessUnit(TSAccessUnit)
    /// A PCR on a program's PCR_PID.
    case pcr(pid: UInt16, ProgramClockReference)
    /// discontinuity_indicator on a packet: the time base (on the PCR PID) or the continuity counter restarts.
    case discontinuity(pid: UInt16)
    /// A recovered error.
    case error(TSDemuxerError)
}
