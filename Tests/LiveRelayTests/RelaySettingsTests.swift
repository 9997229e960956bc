import Testing
import NIOCore
@testable import LiveRelay

/// The relay engine's settings as the CLI reads them from its environment: each variable in its range, else the default.
@Suite struct RelaySettingsTests {
    @Test func anEmptyEnvironmentGivesTheDefaults() {
        let settings = RelaySettings(environment: [:])
        #expect(settings == RelaySettings())
        #expect(settings.threads == System.coreCount && settings.readPacingMilliseconds == 40 && settings.srtReadPacingMilliseconds == 10)
        #expect(settings.webrtcReadPacingMilliseconds == 10)
        #expect(settings.rtmpsCAFile == nil && settings.ingestCertificate == IngestCertificateFiles(certificate: nil, key: nil))
        #expect(!settings.measuresLatency)
        #expect(settings.fileBacklogMiB == 32)
    }

    @Test func everyVariableIsRead() {
        let settings = RelaySettings(environment: [
            "SLUICE_RELAY_THREADS": "3", "SLUICE_RELAY_READ_PACING_MS": "0", "SLUICE_SRT_READ_PACING_MS": "100",
            "SLUICE_WEBRTC_READ_PACING_MS": "0",
            "SLUICE_RTMPS_CA_FILE": "/etc/ca.pem", "SLUICE_RTMPS_CERT_FILE": "/etc/cert.pem", "SLUICE_RTMPS_KEY_FILE": "/etc/key.pem",
            "SLUICE_LATENCY_HISTOGRAM": "1", "SLUICE_FILE_BACKLOG_MIB": "0",
        ])
        #expect(settings == RelaySettings(threads: 3, readPacingMilliseconds: 0, srtReadPacingMilliseconds: 100,
                                          webrtcReadPacingMilliseconds: 0, rtmpsCAFile: "/etc/ca.pem",
                                          ingestCertificate: IngestCertificateFiles(certificate: "/etc/cert.pem", key: "/etc/key.pem"),
                                          measuresLatency: true, fileBacklogMiB: 0))
    }

    @Test(arguments: [
        ("SLUICE_RELAY_THREADS", "0"), ("SLUICE_RELAY_THREADS", "257"), ("SLUICE_RELAY_THREADS", "two"),
        ("SLUICE_RELAY_READ_PACING_MS", "-1"), ("SLUICE_RELAY_READ_PACING_MS", "1001"),
        ("SLUICE_SRT_READ_PACING_MS", "101"), ("SLUICE_SRT_READ_PACING_MS", ""),
        ("SLUICE_WEBRTC_READ_PACING_MS", "-1"), ("SLUICE_WEBRTC_READ_PACING_MS", "101"),
        ("SLUICE_RTMPS_CA_FILE", ""), ("SLUICE_LATENCY_HISTOGRAM", "yes"),
        ("SLUICE_FILE_BACKLOG_MIB", "-1"), ("SLUICE_FILE_BACKLOG_MIB", "65537"), ("SLUICE_FILE_BACKLOG_MIB", "lots"),
    ])
    func aValueOutOfRangeLeavesTheDefault(variable: String, value: String) {
        #expect(RelaySettings(environment: [variable: value]) == RelaySettings(), "\(variable)=\(value)")
    }
}

@Suite("RTSP client ports")
struct RTSPPortBlockTests {
    @Test("blocks of eight from an even port, round the range, each held once")
    func blocks() {
        let blocks = RTSPPortBlocks(range: 40001...40024)
        #expect(blocks.capacity == 2)
        let first = blocks.take()
        let second = blocks.take()
        #expect(first == 40002 && second == 40010)
        #expect(blocks.take() == nil)
        blocks.giveBack(40002)
        #expect(blocks.take() == 40002)
    }

    @Test("the range variable: FIRST-LAST within 1024...65535, at least one block")
    func variable() {
        #expect(RelaySettings(environment: ["SLUICE_RTSP_UDP_PORTS": "41000-41099"]).rtspUDPPorts == 41000...41099)
        for bad in ["80-2000", "41000-41003", "x", "41000", "60000-70000"] {
            #expect(RelaySettings(environment: ["SLUICE_RTSP_UDP_PORTS": bad]).rtspUDPPorts == RelaySettings.defaultRTSPUDPPorts, "\(bad)")
        }
    }
}
