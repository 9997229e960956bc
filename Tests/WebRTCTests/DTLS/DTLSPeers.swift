// Two DTLSTransports wired to each other in memory: datagrams go from one to the other until both are quiet.
import MediaFormats
import WebRTC

/// A client and a server with their own certificates, expecting each other's fingerprints unless told otherwise.
final class DTLSPeers {
    let clientCertificate: DTLSCertificate
    let serverCertificate: DTLSCertificate
    let client: DTLSTransport
    let server: DTLSTransport
    private(set) var clientEvents: [DTLSEvent] = []
    private(set) var serverEvents: [DTLSEvent] = []
    /// Every datagram each side sent, in order, dropped ones included.
    private(set) var clientSent: [[UInt8]] = []
    private(set) var serverSent: [[UInt8]] = []
    /// Decides, by the sender and its datagram's index among all it sent, whether the datagram is lost.
    var drops: (DTLSRole, Int) -> Bool = { _, _ in false }

    init(profiles: [SRTPProtectionProfile] = DTLSCertificate.defaultProfiles, mtu: Int = DTLSTransport.defaultMTU,
         clientExpects: DTLSFingerprint? = nil, serverExpects: DTLSFingerprint? = nil,
         initialRetransmitTimeout: Duration = .milliseconds(50)) throws {
        clientCertificate = try DTLSCertificate(commonName: "client", profiles: profiles)
        serverCertificate = try DTLSCertificate(commonName: "server", profiles: profiles)
        client = try DTLSTransport(role: .client, certificate: clientCertificate,
                                   expectedPeerFingerprint: clientExpects ?? serverCertificate.fingerprint, mtu: mtu,
                                   initialRetransmitTimeout: initialRetransmitTimeout)
        server = try DTLSTransport(role: .server, certificate: serverCertificate,
                                   expectedPeerFingerprint: serverExpects ?? clientCertificate.fingerprint, mtu: mtu,
                                   initialRetransmitTimeout: initialRetransmitTimeout)
    }

    /// Delivers `output` of `sender` and everything it provokes, until no datagram is in flight.
    func deliver(_ output: DTLSOutput, from sender: DTLSRole) {
        var queue: [(from: DTLSRole, output: DTLSOutput)] = [(sender, output)]
        while !queue.isEmpty {
            let (from, output) = queue.removeFirst()
            record(output.events, of: from)
            for datagram in output.datagrams {
                let index: Int
                if from == .client {
                    index = clientSent.count
                    clientSent.append(datagram)
                } else {
                    index = serverSent.count
                    serverSent.append(datagram)
                }
                guard !drops(from, index) else { continue }
                let receiver = from == .client ? server : client
                queue.append((from.peer, receiver.receive(datagram)))
            }
        }
    }

    /// The client's ClientHello and the whole exchange that follows.
    func handshake() {
        deliver(client.start(), from: .client)
    }

    private func record(_ events: [DTLSEvent], of role: DTLSRole) {
        if role == .client { clientEvents += events } else { serverEvents += events }
    }

    /// What `events` say the handshake gave, if it completed.
    static func result(in events: [DTLSEvent]) -> DTLSHandshakeResult? {
        for case let .connected(result) in events { return result }
        return nil
    }

    /// The failure among `events`, if any.
    static func failure(in events: [DTLSEvent]) -> DTLSError? {
        for case let .failed(error) in events { return error }
        return nil
    }
}
