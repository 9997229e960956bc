import Testing
import MediaFormats
import RTMP
@testable import LiveRelay

/// The relay core's decisions (docs/ARCHITECTURE.md §4), without a socket: what each output and archive gets of a
/// stream, for every event the session reports.
@Suite("Relay core")
struct RelayCoreTests {
    typealias Action = RelayCore.Action

    // MARK: A stream, byte by byte

    static func video(_ time: UInt32, _ bytes: [UInt8]) -> Message { Message(type: .video, timestamp: time, streamID: 1, payload: bytes) }
    static func audio(_ time: UInt32, _ bytes: [UInt8]) -> Message { Message(type: .audio, timestamp: time, streamID: 1, payload: bytes) }

    /// A legacy AVC configuration (avcC with one SPS and one PPS); `version` changes its SPS.
    static func avcHeader(_ time: UInt32 = 0, version: UInt8 = 0x1E) -> Message {
        video(time, [0x17, 0x00, 0, 0, 0, 0x01, 0x42, 0x00, version, 0xFF, 0xE1, 0x00, 0x04, 0x67, 0x42, 0x00, version,
                     0x01, 0x00, 0x02, 0x68, 0xEE])
    }
    static func key(_ time: UInt32, _ mark: UInt8 = 0) -> Message { video(time, [0x17, 0x01, 0, 0, 0, 0, 0, 0, 2, 0x65, mark]) }
    static func inter(_ time: UInt32, _ mark: UInt8 = 0) -> Message { video(time, [0x27, 0x01, 0, 0, 0, 0, 0, 0, 2, 0x41, mark]) }
    static func aacHeader(_ time: UInt32 = 0) -> Message { audio(time, [0xAF, 0x00, 0x12, 0x10]) }
    static func aac(_ time: UInt32, _ mark: UInt8 = 0) -> Message { audio(time, [0xAF, 0x01, 0x21, mark]) }
    static func metadata(_ time: UInt32 = 0) -> Message {
        var body = Message.onMetaDataName
        body += [0x08, 0, 0, 0, 0, 0, 0, 9]  // an empty ECMA array
        return Message(type: .dataAMF0, timestamp: time, streamID: 1, payload: body)
    }
    /// Enhanced RTMP multitrack AV1 (OneTrack, CodedFramesX): a key frame (or an inter frame) of `track`.
    static func av1(_ time: UInt32, track: UInt8, keyframe: Bool) -> Message {
        video(time, [keyframe ? 0x96 : 0xA6, 0x03] + Array("av01".utf8) + [track, 0x12, 0])
    }
    static func av1Header(track: UInt8) -> Message { video(0, [0x96, 0x00] + Array("av01".utf8) + [track, 0x81, 0, 0x0C, 0]) }

    static func at(_ time: UInt32, _ message: Message) -> Message {
        var message = message
        message.timestamp = time
        return message
    }

    /// A core fed `messages`, with the actions of the last one.
    static func feed(_ core: inout RelayCore, _ messages: [Message]) -> [Action] {
        var actions: [Action] = []
        for message in messages { core.receive(message, into: &actions) }
        expectHeadsRead(actions)
        return actions
    }

    /// Every action carries the head of its own message (what the outputs count by, read once by the core).
    static func expectHeadsRead(_ actions: [Action], sourceLocation: SourceLocation = #_sourceLocation) {
        for action in actions {
            switch action {
            case let .send(message, head, _), let .archive(message, head, _):
                #expect(head == FLVTagHead(message), "\(message.typeID) at \(message.timestamp)", sourceLocation: sourceLocation)
            case .dropped: break
            }
        }
    }

    /// The messages sent to output `index` among `actions`.
    static func sent(_ actions: [Action], to index: Int) -> [Message] {
        expectHeadsRead(actions)
        return actions.compactMap { if case let .send(message, _, output) = $0, output == index { message } else { nil } }
    }

    static func drops(_ actions: [Action], of index: Int) -> Int {
        actions.filter { $0 == .dropped(output: index) }.count
    }

    /// A core with these archives, and these outputs connected and ready (nothing received yet).
    static func ready(outputs: [Int] = [0], archives: [Int] = []) -> RelayCore {
        var core = RelayCore()
        for index in archives { core.addArchive(index) }
        for index in outputs {
            core.addOutput(index)
            _ = core.outputReady(index)
        }
        return core
    }

    /// A core with output 0 ready and relaying the configured stream from a key frame at 0.
    static func running() -> RelayCore {
        var core = ready()
        _ = feed(&core, [metadata(), avcHeader(), aacHeader(), key(0)])
        return core
    }

    // MARK: The keyframe gate

    @Test("an output starts at a key frame: inter frames before it are dropped; the metadata and every configuration come first, on the key frame's time")
    func keyframeGate() {
        var core = RelayCore()
        core.addOutput(0)
        let replayed = core.outputReady(0)
        #expect(replayed == [])
        let before = Self.feed(&core, [Self.metadata(), Self.avcHeader(), Self.aacHeader(), Self.inter(40), Self.aac(45)])
        #expect(Self.sent(before, to: 0) == [])
        #expect(Self.drops(before, of: 0) == 2)
        let start = Self.feed(&core, [Self.key(80)])
        #expect(Self.sent(start, to: 0) == [Self.at(80, Self.metadata().asSetDataFrame()!), Self.at(80, Self.avcHeader()),
                                            Self.at(80, Self.aacHeader()), Self.key(80)])
        #expect(core.phase(of: 0) == .running(videoStarted: true))
        // From then on, everything, as it comes.
        let next = Self.feed(&core, [Self.inter(120), Self.aac(125)])
        #expect(Self.sent(next, to: 0) == [Self.inter(120), Self.aac(125)])
    }

    @Test("a stream with no video starts at its first audio frame; video that appears later starts at its first key frame, with its configuration")
    func audioThenVideo() {
        var core = Self.ready()
        let audio = Self.feed(&core, [Self.aacHeader(), Self.aac(0)])
        #expect(Self.sent(audio, to: 0) == [Self.aacHeader(), Self.aac(0)])
        #expect(core.phase(of: 0) == .running(videoStarted: false))
        // Video arrives: its configuration goes out as it comes; frames wait for a key frame.
        let header = Self.feed(&core, [Self.avcHeader(30)])
        #expect(Self.sent(header, to: 0) == [Self.avcHeader(30)])
        let inter = Self.feed(&core, [Self.inter(40)])
        #expect(Self.sent(inter, to: 0) == [] && Self.drops(inter, of: 0) == 1)
        let key = Self.feed(&core, [Self.key(80)])
        #expect(Self.sent(key, to: 0) == [Self.at(80, Self.avcHeader()), Self.key(80)])
        #expect(core.phase(of: 0) == .running(videoStarted: true))
    }

    @Test("multitrack: a key frame of track 1 is no start; the default track's (0) late key frame is, with both tracks' configurations")
    func multitrackDefaultTrackLate() {
        var core = Self.ready(archives: [1])
        let early = Self.feed(&core, [Self.av1Header(track: 0), Self.av1Header(track: 1), Self.av1(0, track: 1, keyframe: true),
                                      Self.av1(33, track: 1, keyframe: false)])
        #expect(Self.sent(early, to: 0) == [])
        #expect(Self.drops(early, of: 0) == 2)
        #expect(!early.contains { if case .archive = $0 { true } else { false } })
        #expect(!core.sawKeyframe)
        let start = Self.feed(&core, [Self.av1(66, track: 0, keyframe: true)])
        #expect(Self.sent(start, to: 0) == [Self.at(66, Self.av1Header(track: 0)), Self.at(66, Self.av1Header(track: 1)),
                                            Self.av1(66, track: 0, keyframe: true)])
        #expect(start.filter { if case .archive = $0 { true } else { false } }.count == 3)
        #expect(core.sawKeyframe)
        // Track 1 goes on to every output once started.
        let fed1 = Self.feed(&core, [Self.av1(99, track: 1, keyframe: false)])
        #expect(Self.sent(fed1, to: 0) == [Self.av1(99, track: 1, keyframe: false)])
    }

    // MARK: Late joiners and the group of pictures

    @Test("an output that becomes ready mid-GOP starts from the kept key frame at once, with the configurations")
    func lateJoiner() {
        var core = Self.running()
        core.addOutput(1)
        _ = Self.feed(&core, [Self.inter(40, 1), Self.aac(45), Self.inter(80, 2)])
        let replay = core.outputReady(1)
        #expect(Self.sent(replay, to: 1) == [Self.at(0, Self.metadata().asSetDataFrame()!), Self.avcHeader(), Self.aacHeader(),
                                             Self.key(0), Self.inter(40, 1), Self.aac(45), Self.inter(80, 2)])
        #expect(Self.sent(replay, to: 0) == [])
        #expect(core.phase(of: 1) == .running(videoStarted: true))
        // Nobody waits now: nothing more is kept.
        _ = Self.feed(&core, [Self.inter(120)])
        #expect(core.gop.isEmpty)
    }

    @Test("a configuration that changes mid-GOP goes to running outputs at once; a late joiner then waits for the next key frame")
    func configurationChangeMidGOP() {
        var core = Self.running()
        core.addOutput(1)
        _ = Self.feed(&core, [Self.inter(40)])
        #expect(core.gop.count == 2)
        let changed = Self.feed(&core, [Self.avcHeader(60, version: 0x28)])
        #expect(Self.sent(changed, to: 0) == [Self.avcHeader(60, version: 0x28)])
        #expect(core.gop.isEmpty)
        // The same configuration again (GStreamer repeats its headers) keeps the group.
        _ = Self.feed(&core, [Self.key(80), Self.inter(120), Self.avcHeader(130, version: 0x28)])
        #expect(core.gop.count == 2)
        let replay = core.outputReady(1)
        #expect(Self.sent(replay, to: 1).first == Self.at(80, Self.metadata().asSetDataFrame()!))
        #expect(Self.sent(replay, to: 1).dropFirst() == [Self.at(80, Self.avcHeader(version: 0x28)), Self.at(80, Self.aacHeader()),
                                                           Self.key(80), Self.inter(120)])
    }

    @Test("a group of pictures over the bound is not kept: a late joiner waits for the next key frame")
    func gopBound() {
        var core = RelayCore(maxGOPBytes: 30)
        core.addOutput(0)
        _ = Self.feed(&core, [Self.avcHeader(), Self.key(0), Self.inter(40), Self.inter(80)])
        #expect(core.gop.isEmpty, "3 frames of 11 bytes pass 30")
        let replayed = core.outputReady(0)
        #expect(replayed == [])
        let fed2 = Self.feed(&core, [Self.inter(120)])
        #expect(Self.sent(fed2, to: 0) == [])
        let fed3 = Self.feed(&core, [Self.key(160)])
        #expect(Self.sent(fed3, to: 0).last == Self.key(160))
    }

    @Test("a failed output gets nothing and keeps no group of pictures; a removed one gets nothing")
    func failedAndRemoved() {
        var core = Self.running()
        core.addOutput(1)
        core.outputGone(1, failed: true)
        _ = Self.feed(&core, [Self.key(40)])
        #expect(core.gop.isEmpty)
        #expect(core.phase(of: 1) == .failed)
        core.removeOutput(1)
        #expect(core.phase(of: 1) == nil)
        let after = Self.feed(&core, [Self.key(80)])
        #expect(Self.sent(after, to: 1) == [] && Self.sent(after, to: 0) == [Self.key(80)])
    }

    // MARK: Behind

    @Test("an output behind drops frames while it cannot take more, then starts over at the next key frame with the configurations")
    func behindByAGOP() {
        var core = Self.running()
        core.outputWritable(0, false)
        let behind = Self.feed(&core, [Self.inter(40), Self.aac(45), Self.key(80), Self.avcHeader(90)])
        #expect(Self.sent(behind, to: 0) == [])
        #expect(Self.drops(behind, of: 0) == 3)
        core.outputWritable(0, true)
        let waiting = Self.feed(&core, [Self.inter(120), Self.aac(125)])
        #expect(Self.sent(waiting, to: 0) == [] && Self.drops(waiting, of: 0) == 2)
        let back = Self.feed(&core, [Self.key(160)])
        #expect(Self.sent(back, to: 0) == [Self.at(160, Self.metadata().asSetDataFrame()!), Self.at(160, Self.avcHeader()),
                                           Self.at(160, Self.aacHeader()), Self.key(160)])
    }

    @Test("a reconnecting output gets nothing; the group is kept for it and replayed when it is ready again")
    func reconnect() {
        var core = Self.running()
        core.outputGone(0)
        #expect(core.phase(of: 0) == .connecting)
        let away = Self.feed(&core, [Self.inter(40), Self.key(80), Self.inter(120)])
        #expect(away == [])
        let replay = core.outputReady(0)
        #expect(Self.sent(replay, to: 0).suffix(2) == [Self.key(80), Self.inter(120)])
    }

    // MARK: Archives

    @Test("an archive starts at a key frame with the metadata at 0 and the configurations at the frame's time; metadata later goes to outputs only")
    func archive() {
        var core = Self.ready(archives: [7])
        let actions = Self.feed(&core, [Self.metadata(), Self.avcHeader(), Self.aacHeader(), Self.aac(3), Self.key(5)])
        let archived = actions.compactMap { if case let .archive(message, _, 7) = $0 { message } else { nil } }
        #expect(archived == [Self.at(0, Self.metadata().asSetDataFrame()!), Self.at(5, Self.avcHeader()), Self.at(5, Self.aacHeader()), Self.key(5)])
        let later = Self.feed(&core, [Self.metadata(200), Self.inter(240)])
        let metadata = Self.metadata(200).asSetDataFrame()!
        #expect(later.contains(.send(metadata, FLVTagHead(metadata), output: 0)))
        #expect(later.compactMap { if case let .archive(message, _, 7) = $0 { message } else { nil } } == [Self.inter(240)])
    }

    // MARK: The slate

    @Test("on slate: its configurations go out and stand in for the input's; a late joiner during the slate starts with them")
    func lateJoinerDuringSlate() {
        var core = Self.running()
        core.addOutput(1)
        let slateVideo = Self.avcHeader(1000, version: 0x0D)
        let slateAudio = Self.audio(1000, [0xAF, 0x00, 0x11, 0x90])
        var actions: [Action] = []
        core.enterSlate(headers: [slateVideo, slateAudio], into: &actions)
        #expect(Self.sent(actions, to: 0) == [slateVideo, slateAudio])
        #expect(core.onSlate)
        _ = Self.feed(&core, [Self.key(1000, 9), Self.inter(1033, 9)])
        let joined = core.outputReady(1)
        #expect(Self.sent(joined, to: 1) == [Self.at(1000, Self.metadata().asSetDataFrame()!), slateVideo, slateAudio,
                                             Self.key(1000, 9), Self.inter(1033, 9)])
    }

    @Test("back from slate: the input's messages before its key frame are held (its configurations kept); at the key frame, its configurations go out again, then the frame with its SPS and PPS in band")
    func backFromSlate() {
        var core = Self.running()
        var actions: [Action] = []
        core.enterSlate(headers: [Self.avcHeader(1000, version: 0x0D)], into: &actions)
        // The publisher comes back with a new configuration and an inter frame first: held.
        let returning = Self.avcHeader(5, version: 0x28)
        let held = [returning, Self.inter(10), Self.metadata(10), Self.key(20)].map { core.holdForSlate($0) }
        #expect(held == [true, true, true, false])
        actions = []
        core.leaveSlate(resumeAt: 3000, into: &actions)
        #expect(!core.onSlate)
        #expect(Self.sent(actions, to: 0) == [Self.at(3000, returning), Self.at(3000, Self.aacHeader())])
        let resumed = core.resuming(Self.key(3000))
        #expect(resumed.payload.count > Self.key(3000).payload.count)
        #expect(resumed.payload.suffix(Self.key(3000).payload.count - 5) == Self.key(3000).payload.dropFirst(5))
        // An SPS (NAL type 7) of the returning configuration leads the frame.
        #expect(Array(resumed.payload[5..<12]) == [0, 0, 0, 4, 0x67, 0x42, 0x00])
        #expect(core.resuming(Self.inter(3033)) == Self.inter(3033))
        let fed4 = Self.feed(&core, [Self.at(3000, resumed)])
        #expect(Self.sent(fed4, to: 0) == [Self.at(3000, resumed)])
    }

    @Test("what is not audio, video or data is ignored; a video message whose head does not read is relayed as it is but starts nothing")
    func otherMessages() {
        var core = Self.running()
        let fed5 = Self.feed(&core, [Message(type: .commandAMF0, timestamp: 5, streamID: 1, payload: [1])])
        #expect(fed5 == [])
        let endOfSequence = Self.video(50, [0x17, 0x02, 0, 0, 0])
        let fed6 = Self.feed(&core, [endOfSequence])
        #expect(Self.sent(fed6, to: 0) == [endOfSequence])
    }
}
