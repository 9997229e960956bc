import SluiceTestSupport
import Testing
import MediaFormats

/// Random well-formed enhanced messages: whatever `write(into:)` produces, `init(parsing:)` reads back unchanged.
@Suite("Enhanced FLV write → parse round trips (seeded random messages)")
struct FLVEnhancedRoundTripTests {
    static let videoPacketTypes: [FLVVideoPacketType] = [.sequenceStart, .codedFrames, .sequenceEnd, .codedFramesX, .metadata,
                                                         .mpeg2TSSequenceStart]
    static let audioPacketTypes: [FLVAudioPacketType] = [.sequenceStart, .codedFrames, .sequenceEnd]

    static func multitrack(_ g: inout SeededGenerator) -> FLVMultitrackType? {
        [nil, .oneTrack, .manyTracks, .manyTracksManyCodecs].randomElement(using: &g) ?? nil
    }

    static func trackCount(_ type: FLVMultitrackType?, _ g: inout SeededGenerator) -> Int {
        type == nil || type == .oneTrack ? 1 : Int.random(in: 1...4, using: &g)
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func videoMessages(seed: UInt64) throws {
        var g = SeededGenerator(seed: seed)
        for _ in 0..<300 {
            let type = Self.multitrack(&g)
            let packetType = Self.videoPacketTypes.randomElement(using: &g) ?? .codedFrames
            let shared = FLVVideoFourCC.allCases.randomElement(using: &g) ?? .hvc1
            var tracks: [FLVVideoTrack] = []
            for index in 0..<Self.trackCount(type, &g) {
                let fourCC = type == .manyTracksManyCodecs ? (FLVVideoFourCC.allCases.randomElement(using: &g) ?? .av01) : shared
                let composition = packetType == .codedFrames && fourCC.carriesCompositionTime
                    ? Int32.random(in: FLVLimits.compositionTimeRange, using: &g) : 0
                tracks.append(FLVVideoTrack(id: type == nil ? 0 : UInt8(index * 3), codec: .fourCC(fourCC), compositionTime: composition,
                                            payload: g.bytes(Int.random(in: 0...40, using: &g))[...]))
            }
            let message = FLVVideoData(
                frameType: [.keyFrame, .interFrame, .disposableInterFrame, .generatedKeyFrame].randomElement(using: &g) ?? .keyFrame,
                packetType: packetType,
                timestampOffsetNanoseconds: Bool.random(using: &g) ? UInt32.random(in: 0...999_999, using: &g) : nil,
                multitrackType: type, tracks: tracks)
            let bytes = try message.serialized()
            #expect(try FLVVideoData(parsing: bytes) == message)
        }
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func audioMessages(seed: UInt64) throws {
        var g = SeededGenerator(seed: seed)
        for _ in 0..<300 {
            let type = Self.multitrack(&g)
            let packetType = Self.audioPacketTypes.randomElement(using: &g) ?? .codedFrames
            let shared = FLVAudioFourCC.allCases.randomElement(using: &g) ?? .opus
            let tracks = (0..<Self.trackCount(type, &g)).map { index in
                FLVAudioTrack(id: type == nil ? 0 : UInt8(index),
                              codec: .fourCC(type == .manyTracksManyCodecs ? (FLVAudioFourCC.allCases.randomElement(using: &g) ?? .mp4a) : shared),
                              payload: g.bytes(Int.random(in: 0...40, using: &g))[...])
            }
            let message = FLVAudioData(
                packetType: packetType,
                timestampOffsetNanoseconds: Bool.random(using: &g) ? UInt32.random(in: 0...999_999, using: &g) : nil,
                multitrackType: type, tracks: tracks)
            let bytes = try message.serialized()
            #expect(try FLVAudioData(parsing: bytes) == message)
        }
    }
}
