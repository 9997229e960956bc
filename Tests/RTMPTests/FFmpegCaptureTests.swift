import Foundation
import Testing
@testable import RTMP

/// A real ffmpeg 5.1 publish session (`Fuzz/make-rtmp-corpus` recorded every byte ffmpeg sent: handshake with a
/// digest C1, connect, releaseStream, FCPublish, createStream, publish, @setDataFrame, 2 s of H.264 + AAC,
/// FCUnpublish, deleteStream) replayed into a ServerConnection.
@Suite struct FFmpegCaptureTests {
    private static func capture() throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/captures/ffmpeg-publish.rtmp")
        return [UInt8](try Data(contentsOf: url))
    }

    private static func replay(_ pieces: [[UInt8]]) throws -> [ServerAction] {
        var server = ServerConnection(epoch: 0, random: [0x42])
        var actions: [ServerAction] = []
        for piece in pieces {
            for action in try server.receive(piece) {
                actions.append(action)
                if case .publishRequested = action { actions += server.acceptPublish() }
            }
        }
        return mergingSends(actions)
    }

    @Test func ffmpegPublishSessionYieldsEveryMediaMessage() throws {
        let actions = try Self.replay([try Self.capture()])
        let events = actions.filter { if case .send = $0 { false } else { true } }
        #expect(events.first == .publishRequested(app: "live", streamKey: "key"))
        #expect(events.last == .unpublished)
        let media = events.compactMap { action -> Message? in
            if case let .media(message) = action { return message }
            return nil
        }
        #expect(media.filter { $0.type == .video }.count == 62)
        #expect(media.filter { $0.type == .audio }.count == 89)
        #expect(media.filter { $0.type == .dataAMF0 }.count == 1)
        #expect(media.allSatisfy { $0.streamID == 1 })
        #expect(media.first?.type == .dataAMF0, "@setDataFrame comes first")
        #expect(media.first(where: { $0.type == .video })?.payload.prefix(2) == [0x17, 0x00], "AVC sequence header")
        #expect(media.first(where: { $0.type == .audio })?.payload.prefix(2) == [0xAF, 0x00], "AAC sequence header")
        let videoTimestamps = media.filter { $0.type == .video }.map(\.timestamp)
        #expect(videoTimestamps == videoTimestamps.sorted())
        #expect((videoTimestamps.last ?? 0) >= 1900)
    }

    @Test func ffmpegPublishSessionSplitAtEveryByte() throws {
        let bytes = try Self.capture()
        #expect(try Self.replay(bytes.map { [$0] }) == Self.replay([bytes]))
    }
}
