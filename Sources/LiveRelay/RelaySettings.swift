import MediaJob
import NIOCore

/// What a `RelayEngine` is set up with. The library reads no environment: the CLI reads its own once
/// (`init(environment:)`) and passes the result down; tests build the settings they need.
public struct RelaySettings: Sendable, Equatable {
    /// Event-loop threads for every job of the process.
    public var threads: Int
    /// The longest a playing pull waits between read bursts (`ReadPacer`: the wait grows with the pulls on its loop);
    /// 0 reads as data arrives.
    public var readPacingMilliseconds: Int
    /// How long the `sluice-srt` thread sleeps after a wait that found data (`SRTEventLoop`), from 0 to 100.
    public var srtReadPacingMilliseconds: Int
    /// The longest the WebRTC media port waits between read bursts (`WebRTCMediaPort`: 1 ms per session on the port,
    /// up to this), from 0 to 100; 0 reads as datagrams arrive.
    public var webrtcReadPacingMilliseconds: Int
    /// Extra trusted CA certificates (PEM) for rtmps:// peers, besides the system's.
    public var rtmpsCAFile: String?
    /// What rtmps:// listen jobs serve.
    public var ingestCertificate: IngestCertificateFiles
    /// Whether each RTMP output's restream latency is measured and printed at the job's end (`LatencyReport`).
    public var measuresLatency: Bool
    /// MiB waiting for the file pool, summed over every live file output, past which pulls pause their reads
    /// (`FileBacklog`); 0: no limit.
    public var fileBacklogMiB: Int
    /// The local UDP ports RTSP pulls over UDP take their RTP and RTCP ports from, `RTSPPortBlocks.blockSize` a pull.
    public var rtspUDPPorts: ClosedRange<Int>
    /// The one UDP port every WebRTC session's media uses (ICE-lite host candidates on it).
    public var webrtcUDPPort: Int
    /// The addresses announced as those candidates (what a publisher can reach: a public or node address behind
    /// NAT); empty: every IPv4 address of the machine's interfaces.
    public var webrtcAddresses: [String]
    /// The port those candidates name, when a NAT or a Kubernetes service maps another one onto `webrtcUDPPort`; nil:
    /// that port.
    public var webrtcAnnouncedPort: Int?

    /// The longest read-pacing tick by default (`ReadPacer`: reached at 40 pulls on a loop).
    public static let defaultReadPacingMilliseconds = 40
    /// 10 ms: at most that much added latency, and with 256 messages per socket per read a socket is still read at
    /// up to 270 Mb/s.
    public static let defaultSRTReadPacingMilliseconds = 10
    /// 10 ms, as for SRT: reached at 10 sessions on the port; one session's datagrams wait at most 1 ms.
    public static let defaultWebRTCReadPacingMilliseconds = 10
    /// 32 MiB: a second of 80 streams at 3 Mb/s, far more than a pool that keeps up ever holds.
    public static let defaultFileBacklogMiB = 32
    /// 1,000 ports: 125 cameras pulled over UDP at once.
    public static let defaultRTSPUDPPorts = 50000...50999
    /// 8189, as MediaMTX and others use for WebRTC over UDP.
    public static let defaultWebRTCUDPPort = 8189

    public init(threads: Int = System.coreCount, readPacingMilliseconds: Int = RelaySettings.defaultReadPacingMilliseconds,
                srtReadPacingMilliseconds: Int = RelaySettings.defaultSRTReadPacingMilliseconds,
                webrtcReadPacingMilliseconds: Int = RelaySettings.defaultWebRTCReadPacingMilliseconds, rtmpsCAFile: String? = nil,
                ingestCertificate: IngestCertificateFiles = IngestCertificateFiles(certificate: nil, key: nil),
                measuresLatency: Bool = false, fileBacklogMiB: Int = RelaySettings.defaultFileBacklogMiB,
                rtspUDPPorts: ClosedRange<Int> = RelaySettings.defaultRTSPUDPPorts,
                webrtcUDPPort: Int = RelaySettings.defaultWebRTCUDPPort, webrtcAddresses: [String] = [], webrtcAnnouncedPort: Int? = nil) {
        self.threads = threads
        self.readPacingMilliseconds = readPacingMilliseconds
        self.srtReadPacingMilliseconds = srtReadPacingMilliseconds
        self.webrtcReadPacingMilliseconds = webrtcReadPacingMilliseconds
        self.rtmpsCAFile = rtmpsCAFile.flatMap { $0.isEmpty ? nil : $0 }
        self.ingestCertificate = ingestCertificate
        self.measuresLatency = measuresLatency
        self.fileBacklogMiB = max(fileBacklogMiB, 0)
        self.rtspUDPPorts = rtspUDPPorts
        self.webrtcUDPPort = webrtcUDPPort
        self.webrtcAddresses = webrtcAddresses
        self.webrtcAnnouncedPort = webrtcAnnouncedPort
    }

    /// Environment variable: how many event-loop threads the engine runs (1 to 256; default one per core).
    public static let threadsVariable = "SLUICE_RELAY_THREADS"
    /// Environment variable: the pulls' longest read-pacing tick in milliseconds (0 to 1000).
    public static let readPacingVariable = "SLUICE_RELAY_READ_PACING_MS"
    /// Environment variable: the SRT thread's read pacing in milliseconds (0 to 100).
    public static let srtReadPacingVariable = "SLUICE_SRT_READ_PACING_MS"
    /// Environment variable: the WebRTC media port's longest read pacing in milliseconds (0 to 100).
    public static let webrtcReadPacingVariable = "SLUICE_WEBRTC_READ_PACING_MS"
    /// Environment variable: a PEM file of extra CA certificates trusted for rtmps://.
    public static let caFileVariable = "SLUICE_RTMPS_CA_FILE"
    /// Environment variable: the file backlog's limit in MiB (0 to 65536; 0: no limit).
    public static let fileBacklogVariable = "SLUICE_FILE_BACKLOG_MIB"
    /// Environment variable: the RTSP client port range, `FIRST-LAST` (1024 to 65535, at least one block).
    public static let rtspUDPPortsVariable = "SLUICE_RTSP_UDP_PORTS"
    /// Environment variable: the WebRTC media port (1024 to 65535).
    public static let webrtcUDPPortVariable = "SLUICE_WEBRTC_UDP_PORT"
    /// Environment variable: the addresses WebRTC answers announce, comma-separated.
    public static let webrtcAddressesVariable = "SLUICE_WEBRTC_ADDRESSES"
    /// Environment variable: the port WebRTC answers announce, when it differs from the one bound (1 to 65535).
    public static let webrtcAnnouncedPortVariable = "SLUICE_WEBRTC_ANNOUNCED_PORT"
    /// Environment variable: `1` measures restream latency (the restream benchmark reads it).
    public static let latencyVariable = LatencyReport.environmentVariable

    /// The settings `variables` name; a value out of its range (or not a number) leaves that setting's default.
    /// - Parameter variables: the process environment, as the CLI read it (or a test's).
    public init(environment variables: [String: String]) {
        func number(_ name: String, in range: ClosedRange<Int>) -> Int? {
            variables[name].flatMap { Int($0) }.flatMap { range.contains($0) ? $0 : nil }
        }
        self.init(threads: number(Self.threadsVariable, in: 1...256) ?? System.coreCount,
                  readPacingMilliseconds: number(Self.readPacingVariable, in: 0...1000) ?? Self.defaultReadPacingMilliseconds,
                  srtReadPacingMilliseconds: number(Self.srtReadPacingVariable, in: 0...100) ?? Self.defaultSRTReadPacingMilliseconds,
                  webrtcReadPacingMilliseconds: number(Self.webrtcReadPacingVariable, in: 0...100) ?? Self.defaultWebRTCReadPacingMilliseconds,
                  rtmpsCAFile: variables[Self.caFileVariable],
                  ingestCertificate: IngestCertificateFiles(environment: variables),
                  measuresLatency: variables[Self.latencyVariable] == "1",
                  fileBacklogMiB: number(Self.fileBacklogVariable, in: 0...65536) ?? Self.defaultFileBacklogMiB,
                  rtspUDPPorts: variables[Self.rtspUDPPortsVariable].flatMap(Self.portRange) ?? Self.defaultRTSPUDPPorts,
                  webrtcUDPPort: number(Self.webrtcUDPPortVariable, in: 1024...65535) ?? Self.defaultWebRTCUDPPort,
                  webrtcAddresses: (variables[Self.webrtcAddressesVariable] ?? "").split(separator: ",")
                      .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty },
                  webrtcAnnouncedPort: number(Self.webrtcAnnouncedPortVariable, in: 1...65535))
    }

    /// `FIRST-LAST` within 1024...65535 and wide enough for one pull; nil for anything else.
    static func portRange(_ text: String) -> ClosedRange<Int>? {
        let bounds = text.split(separator: "-", omittingEmptySubsequences: false).compactMap { Int($0) }
        guard bounds.count == 2, bounds[0] >= 1024, bounds[1] <= 65535, bounds[1] - bounds[0] + 1 >= RTSPPortBlocks.blockSize else { return nil }
        return bounds[0]...bounds[1]
    }
}
