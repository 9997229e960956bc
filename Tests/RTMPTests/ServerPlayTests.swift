import Foundation
import MediaFormats
import Testing
@testable import RTMP

/// A ServerConnection made with `servesPlayers` (a test origin) playing to Sluice's own ClientConnection, in memory.
@Suite struct ServerPlayTests {
    /// Runs connect … play between a player and an origin; returns both and what the player did.
    private func played(servesPlayers: Bool) throws -> (client: ClientConnection, server: ServerConnection, requests: [ServerAction], clientActions: [ClientAction]) {
        var client = ClientConnection(mode: .play, app: "live", tcURL: "rtmp://127.0.0.1/live", streamKey: "origin-key", epoch: 7, random: clientRandom)
        var server = ServerConnection(epoch: 9, random: serverRandom, servesPlayers: servesPlayers)
        var toServer = client.start()
        var requests: [ServerAction] = []
        var clientActions: [ClientAction] = []
        for _ in 0..<20 where !toServer.isEmpty {
            var toClient: [UInt8] = []
            for action in try server.receive(toServer) {
                switch action {
                case let .send(bytes): toClient += bytes
                case .playRequested:
                    requests.append(action)
                    for case let .send(bytes) in server.acceptPlay() { toClient += bytes }
                default: requests.append(action)
                }
            }
            toServer = []
            for action in try client.receive(toClient) {
                if case let .send(bytes) = action { toServer += bytes } else { clientActions.append(action) }
            }
        }
        return (client, server, requests, clientActions)
    }

    @Test("play is requested, accepted with Play.Start; media reaches the player on its stream; endPlay ends it")
    func playsToAPlayer() throws {
        var (client, server, requests, actions) = try played(servesPlayers: true)
        #expect(requests == [.playRequested(app: "live", streamKey: "origin-key")])
        #expect(actions == [.ready])
        #expect(client.isReady)
        let hevcKey = Message(type: .video, timestamp: 40, streamID: 0, payload: [0x91] + Array("hvc1".utf8) + [0, 0, 0, 0, 0, 0, 2, 0x26, 1])
        let opus = Message(type: .audio, timestamp: 41, streamID: 0, payload: [0x91] + Array("Opus".utf8) + [0xFC])
        var bytes: [UInt8] = []
        server.encodeMedia(hevcKey, into: &bytes)
        server.encodeMedia(opus, into: &bytes)
        bytes += server.endPlay()
        let received = try client.receive(bytes)
        var expectedKey = hevcKey
        expectedKey.streamID = client.messageStreamID
        var expectedOpus = opus
        expectedOpus.streamID = client.messageStreamID
        #expect(received.filter { if case .send = $0 { false } else { true } } == [.media(expectedKey), .media(expectedOpus), .streamEnded])
    }

    @Test("a server not made to serve players answers play with _error, as before")
    func publishOnlyServerRefusesPlay() throws {
        let (_, _, requests, actions) = try played(servesPlayers: false)
        #expect(requests.isEmpty)
        #expect(actions.contains { if case .refused = $0 { true } else { false } }, "\(actions)")
    }
}
