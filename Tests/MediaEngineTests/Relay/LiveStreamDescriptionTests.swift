import MediaFormats
import Testing
@testable import MediaEngine
@testable import MediaSinks
import MediaJob

/// What the codec stage learns from a live input's first tags: AVC and AAC configurations, and every other codec
/// named in the job's error (never a silent "received no packets").
@Suite("LiveStreamDescription")
struct LiveStreamDescriptionTests {
    static let avcSequenceHeader = FLVStreamTag(type: .video, timestamp: 0, data: [0x17, 0, 0, 0, 0, 1, 0x64, 0, 0x1F, 0xFF])
    static let aacSequenceHeader = FLVStreamTag(type: .audio, timestamp: 0, data: [0xAF, 0, 0x11, 0x90])
    static func avcFrame(at time: Int64) -> FLVStreamTag {
        FLVStreamTag(type: .video, timestamp: time, data: [0x27, 1, 0, 0, 0, 0, 0, 0, 1, 0x41])
    }

    static func enhancedVideo(_ fourCC: FLVVideoFourCC) throws -> FLVStreamTag {
        let data = FLVVideoData(frameType: .keyFrame, packetType: .sequenceStart, fourCC: fourCC, payload: [1, 2, 3, 4][...])
        return FLVStreamTag(type: .video, timestamp: 0, data: try data.serialized())
    }

    static func enhancedAudio(_ fourCC: FLVAudioFourCC) throws -> FLVStreamTag {
        let data = FLVAudioData(packetType: .sequenceStart, fourCC: fourCC, payload: [1, 2, 3, 4][...])
        return FLVStreamTag(type: .audio, timestamp: 0, data: try data.serialized())
    }

    static func refusal(_ tag: FLVStreamTag, video: Bool = true, audio: Bool = true) -> String? {
        var description = LiveStreamDescription()
        do {
            try description.take(tag, video: video, audio: audio)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test("HEVC, AV1, VP9 and VP8 over Enhanced RTMP are taken with their records; VVC is named by codec and FourCC")
    func enhancedVideo() throws {
        for (fourCC, codec) in [(FLVVideoFourCC.hvc1, LiveMediaTag.Codec.hevc), (.av01, .av1), (.vp09, .vp9), (.vp08, .vp8)] {
            var description = LiveStreamDescription()
            try description.take(try Self.enhancedVideo(fourCC), video: true, audio: true)
            #expect(description.videoCodec == codec)
            #expect(description.videoConfiguration == [1, 2, 3, 4])
        }
        for (fourCC, name) in [(FLVVideoFourCC.vvc1, "H.266")] {
            let message = try #require(Self.refusal(try Self.enhancedVideo(fourCC)), "\(fourCC) was taken")
            #expect(message.contains("the live input's video is \(name) (FourCC \(fourCC), Enhanced RTMP)"), "\(message)")
            #expect(message.contains("video.mode to drop"))
        }
    }

    @Test("Opus over Enhanced RTMP is taken; AC-3 and legacy MP3 are named; a job that drops the kind never looks at it")
    func audioNamedOrDropped() throws {
        var description = LiveStreamDescription()
        try description.take(try Self.enhancedAudio(.opus), video: true, audio: true)
        #expect(description.audioCodec == .opus && description.audioConfiguration == [1, 2, 3, 4])
        let ac3 = try #require(Self.refusal(try Self.enhancedAudio(.ac3)))
        #expect(ac3.contains("the live input's audio is AC-3 (FourCC ac-3, Enhanced RTMP)"), "\(ac3)")
        let mp3 = try #require(Self.refusal(FLVStreamTag(type: .audio, timestamp: 0, data: [0x2F, 0xFF, 0xFB])))
        #expect(mp3.contains("audio is MP3"), "\(mp3)")
        #expect(Self.refusal(try Self.enhancedAudio(.ac3), audio: false) == nil)
        #expect(Self.refusal(try Self.enhancedVideo(.vvc1), video: false) == nil)
    }

    @Test("a live tag reads as its codec and content: legacy AVC, HEVC CodedFrames with its offset, a multitrack's track 0")
    func mediaTags() throws {
        let legacy = try LiveMediaTag(video: Self.avcFrame(at: 0).data)
        #expect(legacy.codec == .h264)
        #expect(legacy.content == .frame([0, 0, 0, 1, 0x41][...], compositionTime: 0, isKeyframe: false))
        let hevc = FLVVideoData(frameType: .keyFrame, packetType: .codedFrames, fourCC: .hvc1, compositionTime: 66, payload: [0, 0, 0, 1, 0x26][...])
        let read = try LiveMediaTag(video: try hevc.serialized())
        #expect(read.codec == .hevc)
        #expect(read.content == .frame([0, 0, 0, 1, 0x26][...], compositionTime: 66, isKeyframe: true))
        let tracks = FLVVideoData(frameType: .interFrame, packetType: .codedFramesX, multitrackType: .manyTracksManyCodecs, tracks: [
            FLVVideoTrack(id: 1, codec: .fourCC(.hvc1), payload: [9][...]), FLVVideoTrack(id: 0, codec: .fourCC(.av01), payload: [7, 7][...]),
        ])
        let track0 = try LiveMediaTag(video: try tracks.serialized())
        #expect(track0.codec == .av1)
        #expect(track0.content == .frame([7, 7][...], compositionTime: 0, isKeyframe: false))
        let opus = try LiveMediaTag(audio: try FLVAudioData(packetType: .codedFrames, fourCC: .opus, payload: [0xFC, 1][...]).serialized())
        #expect(opus.codec == .opus && opus.content == .frame([0xFC, 1][...], compositionTime: 0, isKeyframe: true))
    }

    @Test("both sequence headers complete the description; without audio, three seconds of video do")
    func completion() {
        var both = LiveStreamDescription()
        #expect(throws: Never.self) { try both.take(Self.avcSequenceHeader, video: true, audio: true) }
        #expect(!both.isComplete(video: true, audio: true))
        #expect(throws: Never.self) { try both.take(Self.aacSequenceHeader, video: true, audio: true) }
        #expect(both.isComplete(video: true, audio: true))
        #expect(both.videoConfiguration == [1, 0x64, 0, 0x1F, 0xFF] && both.audioConfiguration == [0x11, 0x90])

        var videoOnly = LiveStreamDescription()
        #expect(throws: Never.self) {
            try videoOnly.take(Self.avcSequenceHeader, video: true, audio: true)
            for time in stride(from: Int64(0), to: 2_900, by: 100) { try videoOnly.take(Self.avcFrame(at: time), video: true, audio: true) }
        }
        #expect(!videoOnly.isComplete(video: true, audio: true))
        #expect(throws: Never.self) { try videoOnly.take(Self.avcFrame(at: 3_000), video: true, audio: true) }
        #expect(videoOnly.isComplete(video: true, audio: true))
    }

    @Test("a dropped kind needs no sequence header")
    func droppedKind() {
        var description = LiveStreamDescription()
        #expect(throws: Never.self) { try description.take(Self.avcSequenceHeader, video: true, audio: false) }
        #expect(description.isComplete(video: true, audio: false))
    }
}
