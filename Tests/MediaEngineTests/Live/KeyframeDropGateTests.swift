import MediaFormats
import Testing
@testable import MediaEngine

@Suite("KeyframeDropGate")
struct KeyframeDropGateTests {
    static func video(_ dts: Int64, key: Bool = false) -> MediaPacket {
        MediaPacket(kind: .video, data: [0], pts: dts, dts: dts, isKeyframe: key)
    }
    static func audio(_ dts: Int64) -> MediaPacket {
        MediaPacket(kind: .audio, data: [0], pts: dts, dts: dts, isKeyframe: true)
    }
    static let configuration = VideoConfiguration(bitstream: .annexB(extradata: [0, 0, 0, 1, 0x67]), width: 320, height: 240, frameRate: 30)

    @Test("after an overflow everything waits for the next video keyframe, audio included")
    func dropsToKeyframe() {
        var gate = KeyframeDropGate(hasVideo: true)
        #expect(gate.admit(Self.video(0, key: true)) != nil)
        let refused = Self.video(33)
        gate.overflowed(with: refused)
        #expect(gate.admit(Self.audio(40)) == nil)
        #expect(gate.admit(Self.video(66)) == nil)
        #expect(gate.drops == 3)
        let resumed = gate.admit(Self.video(99, key: true))
        #expect(resumed?.dts == 99)
        #expect(gate.admit(Self.audio(100)) != nil)
        #expect(gate.drops == 3)
    }

    @Test("a configuration change on a dropped packet rides on the keyframe that resumes")
    func carriesConfiguration() {
        var gate = KeyframeDropGate(hasVideo: true)
        var changed = Self.video(33)
        changed.videoConfiguration = Self.configuration
        gate.overflowed(with: Self.video(0))
        #expect(gate.admit(changed) == nil)
        let resumed = gate.admit(Self.video(66, key: true))
        #expect(resumed?.videoConfiguration == Self.configuration)
        #expect(gate.admit(Self.video(99))?.videoConfiguration == nil)
    }

    @Test("an audio-only output resumes on the next frame")
    func audioOnly() {
        var gate = KeyframeDropGate(hasVideo: false)
        gate.overflowed(with: Self.audio(0))
        #expect(gate.admit(Self.audio(21)) != nil)
        #expect(gate.drops == 1)
    }
}
