import Foundation
import MediaJob
import MediaFormats
import RTMP
import SluiceTestSupport
import Testing
@testable import LiveRelay
import NIOConcurrencyHelpers

/// Enhanced RTMP (HEVC, AV1, Opus) through listen jobs, with FFmpeg 8 (PyAV) as the publisher, as a listen-mode
/// destination and as the archive's reader. The referee is FFmpeg's decode of the source file: every frame, hashed.
@Suite("Enhanced RTMP with FFmpeg 8", .serialized, .enabled(if: EnhancedPeer.isAvailable, EnhancedPeer.unavailableReason))
struct EnhancedRTMPTests {
    static let reports = NIOLockedValueBox<[String]>([])
    static let engine = RelayEngine(RelaySettings(threads: 2), report: { line in EnhancedRTMPTests.reports.withLockedValue { $0.append(line) } })

    /// Options for a listen job on `port` with RTMP `outputs` and an archive at `archive` (under `root`).
    static func options(port: Int, key: String, outputs: [String], archive: String?, root: String) -> MediaJobOptions {
        // The input timeout is not what these judge: a Python publisher importing PyAV beside ThreadSanitizer and CPU hogs
        // (`scripts/test --tsan --stress`) took over 3 s to publish.
        var options = Live.options(input: "rtmp://127.0.0.1:\(port)/ingest/\(key)", listen: true, outputs: outputs, timeout: 10,
                                   reconnect: ReconnectPolicy(attempts: 2, initialDelay: 0.2, maxDelay: 0.5))
        if let archive {
            options.outputs.append(OutputDescription(target: .file(path: archive), kind: .flv, name: archive))
        }
        options.fileRoots = FileRoots(input: root, output: root)
        return options
    }

    static func expectSame(_ got: EnhancedPeer.Decoded, _ source: EnhancedPeer.Decoded, _ label: String) {
        #expect(got.errors.isEmpty, "\(label): FFmpeg said \(got.errors.prefix(5))")
        #expect(got.video?.codec == source.video?.codec, "\(label): video decoded by \(got.video?.codec ?? "nothing")")
        #expect(got.video?.frames == source.video?.frames, "\(label): \(got.video?.frames ?? 0) of \(source.video?.frames ?? 0) video frames")
        #expect(got.video?.hashes == source.video?.hashes, "\(label): the video frames are not the source's")
        #expect(got.audio?.codec == source.audio?.codec, "\(label): audio decoded by \(got.audio?.codec ?? "nothing")")
        #expect(got.audio?.frames == source.audio?.frames, "\(label): \(got.audio?.frames ?? 0) of \(source.audio?.frames ?? 0) audio frames")
        #expect(got.audio?.hashes == source.audio?.hashes, "\(label): the audio frames are not the source's")
    }

    @Test("FFmpeg 8 publishes HEVC + AAC to a listen job: FFmpeg 8 listening and the archive decode every frame")
    func hevcToListenServerAndArchive() throws {
        let source = try EnhancedPeer.fixture(video: "hevc", audio: "aac")
        let reference = try EnhancedPeer.decode(source)
        #expect(reference.video?.codec == "hevc" && (reference.video?.frames ?? 0) == 120 && reference.errors.isEmpty)
        let root = Live.scratch("enhanced-hevc")
        let destinationPort = try Live.freePort()
        let destination = try EnhancedPeer.listen("rtmp://127.0.0.1:\(destinationPort)/live/destkey", json: root + "/played.json")
        let port = try Live.freePort()
        let options = Self.options(port: port, key: "hevckey", outputs: ["rtmp://127.0.0.1:\(destinationPort)/live/destkey"],
                                   archive: root + "/archive.flv", root: root)
        let job = RunningJob(Self.engine, options)
        #expect(Live.wait(seconds: 5) { Self.engine.listeningPorts > 0 })
        let publisher = try EnhancedPeer.publish(source, to: "rtmp://127.0.0.1:\(port)/ingest/hevckey")
        #expect(publisher.wait(seconds: 30) == 0, "publisher: \(publisher.stderr)")
        let result = try #require(job.wait(seconds: 30), "the job did not end").get()
        #expect(destination.wait(seconds: 30) == 0, "FFmpeg's listen server: \(destination.stderr)")

        Self.expectSame(try EnhancedPeer.read(root + "/played.json"), reference, "FFmpeg 8 listening")
        Self.expectSame(try EnhancedPeer.decode(root + "/archive.flv"), reference, "the archive")
        #expect(result.progress.videoFrames == 120)
        #expect(result.progress.outputs.map(\.videoFrames) == [120, 120])
        #expect(result.progress.outputs.map(\.status) == [.finished, .finished])
        // FFmpeg's listen server announces no codecs: the HEVC went anyway, and the engine said so (without the key).
        let said = Self.reports.withLockedValue { $0 }
        #expect(said.contains { $0.contains("output 0") && $0.contains("hvc1 (HEVC)") && $0.contains("announced no Enhanced RTMP codecs") },
                "reports: \(said)")
        #expect(!said.contains { $0.contains("destkey") || $0.contains("hevckey") })
    }

    @Test("FFmpeg 8 publishes AV1 + Opus to a listen job: the archive decodes to every frame")
    func av1OpusArchive() throws {
        let source = try EnhancedPeer.fixture(video: "av1", audio: "opus")
        let reference = try EnhancedPeer.decode(source)
        #expect(reference.video?.frames == 120 && reference.audio?.codec == "opus" && reference.errors.isEmpty)
        let root = Live.scratch("enhanced-av1")
        let port = try Live.freePort()
        let job = RunningJob(Self.engine, Self.options(port: port, key: "av1key", outputs: [], archive: root + "/archive.flv", root: root))
        #expect(Live.wait(seconds: 5) { Self.engine.listeningPorts > 0 })
        let publisher = try EnhancedPeer.publish(source, to: "rtmp://127.0.0.1:\(port)/ingest/av1key")
        #expect(publisher.wait(seconds: 30) == 0, "publisher: \(publisher.stderr)")
        let result = try #require(job.wait(seconds: 30), "the job did not end").get()
        Self.expectSame(try EnhancedPeer.decode(root + "/archive.flv"), reference, "the archive")
        #expect(result.progress.videoFrames == 120)
        #expect(result.progress.outputs.first?.videoFrames == 120)
    }

    @Test("a destination that announces only H.264 and AAC: that output fails naming hvc1, the archive is whole")
    func destinationWithoutHEVC() throws {
        let source = try EnhancedPeer.fixture(video: "hevc", audio: "aac")
        let legacyOnly = EnhancedCapabilities(fourCCList: ["avc1", "mp4a"],
                                              videoInfo: [("avc1", EnhancedCapabilities.InfoMask.canForward)],
                                              audioInfo: [("mp4a", EnhancedCapabilities.InfoMask.canForward)])
        let destination = try StuckDestination(capabilities: legacyOnly, stopsReading: false)
        defer { destination.close() }
        let root = Live.scratch("enhanced-refused")
        let port = try Live.freePort()
        let job = RunningJob(Self.engine, Self.options(port: port, key: "refusekey", outputs: [destination.url],
                                                       archive: root + "/archive.flv", root: root))
        #expect(Live.wait(seconds: 5) { Self.engine.listeningPorts > 0 })
        let publisher = try EnhancedPeer.publish(source, to: "rtmp://127.0.0.1:\(port)/ingest/refusekey")
        #expect(publisher.wait(seconds: 30) == 0, "publisher: \(publisher.stderr)")
        let result = try #require(job.wait(seconds: 30), "the job did not end").get()
        let output = try #require(result.progress.outputs.first)
        #expect(output.status == .failed)
        #expect(output.lastError?.contains("does not take video hvc1 (HEVC)") == true, "\(output.lastError ?? "no error")")
        #expect(output.reconnects == 0, "a refused codec is not retried")
        // Nothing of the stream's video reached that destination: no tag it cannot read.
        #expect(!destination.media.contains { $0.typeID == MessageType.video.rawValue })
        #expect(result.progress.outputs[1].videoFrames == 120)
    }

    @Test("a job whose only destination refuses the codec fails naming it")
    func onlyDestinationRefuses() throws {
        let source = try EnhancedPeer.fixture(video: "hevc", audio: "aac")
        let destination = try StuckDestination(capabilities: EnhancedCapabilities(fourCCList: ["avc1"]), stopsReading: false)
        defer { destination.close() }
        let root = Live.scratch("enhanced-refused-only")
        let port = try Live.freePort()
        let job = RunningJob(Self.engine, Self.options(port: port, key: "onlykey", outputs: [destination.url], archive: nil, root: root))
        #expect(Live.wait(seconds: 5) { Self.engine.listeningPorts > 0 })
        let publisher = try EnhancedPeer.publish(source, to: "rtmp://127.0.0.1:\(port)/ingest/onlykey")
        let outcome = try #require(job.wait(seconds: 30), "the job did not end")
        publisher.wait(seconds: 30)
        guard case let .failure(error) = outcome else {
            Issue.record("the job succeeded without sending its video anywhere")
            return
        }
        #expect(error.description.contains("hvc1 (HEVC)"), "\(error)")
        #expect(!error.description.contains("onlykey"))
    }

    @Test("video the relay cannot read (an unknown FourCC) fails the job naming it, though the audio was archived")
    func unreadableVideoIsNeverSilent() throws {
        let source = try EnhancedPeer.fixture(video: "hevc", audio: "aac")
        let root = Live.scratch("enhanced-unknown")
        let flv = root + "/source.flv"
        try EnhancedPeer.remux(source, to: flv)
        // Every ex-header video tag's FourCC "hvc1" becomes "xyz1".
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: flv)))
        var position = 13
        var renamed = 0
        while position + 11 <= bytes.count {
            let size = Int(bytes[position + 1]) << 16 | Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
            let body = position + 11
            if bytes[position] == 9, body + 5 <= bytes.count, bytes[body] & 0x80 != 0, Array(bytes[body + 1..<body + 5]) == Array("hvc1".utf8) {
                bytes.replaceSubrange(body + 1..<body + 5, with: Array("xyz1".utf8))
                renamed += 1
            }
            position = body + size + 4
        }
        #expect(renamed > 120)
        try Data(bytes).write(to: URL(fileURLWithPath: flv))
        let port = try Live.freePort()
        let job = RunningJob(Self.engine, Self.options(port: port, key: "xyzkey", outputs: [], archive: root + "/out/archive.flv", root: root))
        #expect(Live.wait(seconds: 5) { Self.engine.listeningPorts > 0 })
        #expect(try OBSLikePublisher.run(port: port, app: "ingest", key: "xyzkey", flv: flv).contains("published"))
        let outcome = try #require(job.wait(seconds: 30), "the job did not end")
        guard case let .failure(error) = outcome else {
            Issue.record("a job whose video could not be read succeeded")
            return
        }
        #expect(error.description.contains("xyz1") && error.description.contains("video.mode"), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: root + "/out/archive.flv"), "a failed job leaves no archive")
        // Said as it happened, once, without the key.
        let said = Self.reports.withLockedValue { $0 }.filter { $0.contains("dropping video messages") }
        #expect(said.count == 1 && said.allSatisfy { $0.contains("xyz1") && !$0.contains("xyzkey") }, "\(said)")
    }
}

/// The same HEVC stream pulled from an origin that plays it (nginx-rtmp forwards no enhanced video to its players).
extension EnhancedRTMPTests {
    @Test("a pull job of HEVC + AAC from an origin: FFmpeg 8 listening and the archive decode every frame")
    func hevcPull() throws {
        let source = try EnhancedPeer.fixture(video: "hevc", audio: "aac")
        let reference = try EnhancedPeer.decode(source)
        let root = Live.scratch("enhanced-pull")
        try EnhancedPeer.remux(source, to: root + "/recording.flv")
        let origin = try EnhancedOrigin(flv: root + "/recording.flv")
        defer { origin.close() }
        let destinationPort = try Live.freePort()
        let destination = try EnhancedPeer.listen("rtmp://127.0.0.1:\(destinationPort)/live/pulldest", json: root + "/played.json")
        var options = Live.options(input: origin.url(key: "originkey"), outputs: ["rtmp://127.0.0.1:\(destinationPort)/live/pulldest"],
                                   timeout: 3, reconnect: ReconnectPolicy(attempts: 2, initialDelay: 0.2, maxDelay: 0.5))
        options.outputs.append(OutputDescription(target: .file(path: root + "/archive.flv"), kind: .flv, name: root + "/archive.flv"))
        options.fileRoots = FileRoots(input: root, output: root)
        let job = RunningJob(Self.engine, options)
        let outcome = try #require(job.wait(seconds: 40), "the job did not end")
        let plays = origin.log.state.withLockedValue { $0.plays }
        #expect(plays.first == "originkey", "plays \(plays), tags sent \(origin.log.state.withLockedValue { $0.sent })")
        #expect(origin.log.state.withLockedValue { $0.protocolErrors }.isEmpty)
        if case let .failure(error) = outcome {
            let progress = job.latestProgress
            Issue.record("\(error): \(progress?.videoFrames ?? -1) video frames, \(progress?.inputReconnects ?? -1) reconnects, origin: \(origin.log.state.withLockedValue { $0 })")
            return
        }
        let result = try outcome.get()
        #expect(destination.wait(seconds: 30) == 0, "FFmpeg's listen server: \(destination.stderr)")
        Self.expectSame(try EnhancedPeer.read(root + "/played.json"), reference, "FFmpeg 8 listening, pulled")
        Self.expectSame(try EnhancedPeer.decode(root + "/archive.flv"), reference, "the archive, pulled")
        #expect(result.progress.outputs.map(\.videoFrames) == [120, 120])
    }
}

/// Multitrack: FFmpeg 8's multitrack FLV (HEVC + AAC on track 0, AV1 + Opus on track 1) published as OBS publishes.
extension EnhancedRTMPTests {
    @Test("multitrack HEVC+AAC / AV1+Opus through a listen job: every track reaches FFmpeg 8 listening and the archive, frame for frame")
    func multitrack() throws {
        let root = Live.scratch("enhanced-multitrack")
        let flv = root + "/multitrack.flv"
        try EnhancedPeer.mux([try EnhancedPeer.fixture(video: "hevc", audio: "aac"), try EnhancedPeer.fixture(video: "av1", audio: "opus")], to: flv)
        let reference = try EnhancedPeer.decode(flv)
        #expect(reference.tracks.map(\.codec) == ["hevc", "aac", "libdav1d", "opus"] && reference.errors.isEmpty,
                "\(reference.tracks.map(\.codec)) \(reference.errors)")
        let destinationPort = try Live.freePort()
        let destination = try EnhancedPeer.listen("rtmp://127.0.0.1:\(destinationPort)/live/multidest", json: root + "/played.json")
        let port = try Live.freePort()
        let job = RunningJob(Self.engine, Self.options(port: port, key: "multikey", outputs: ["rtmp://127.0.0.1:\(destinationPort)/live/multidest"],
                                                       archive: root + "/archive.flv", root: root))
        #expect(Live.wait(seconds: 5) { Self.engine.listeningPorts > 0 })
        #expect(try OBSLikePublisher.run(port: port, app: "ingest", key: "multikey", flv: flv).contains("published"))
        let result = try #require(job.wait(seconds: 30), "the job did not end").get()
        #expect(destination.wait(seconds: 30) == 0, "FFmpeg's listen server: \(destination.stderr)")
        // FFmpeg numbers streams in the order their first tags arrive: the relay sends every video configuration before
        // the audio ones, the source interleaves them, so streams are compared by kind and codec.
        func sorted(_ tracks: [EnhancedPeer.Decoded.Track]) -> [EnhancedPeer.Decoded.Track] {
            tracks.sorted { ($0.kind, $0.codec) < ($1.kind, $1.codec) }
        }
        for (label, decoded) in [("FFmpeg 8 listening", try EnhancedPeer.read(root + "/played.json")), ("the archive", try EnhancedPeer.decode(root + "/archive.flv"))] {
            #expect(decoded.errors.isEmpty, "\(label): \(decoded.errors.prefix(5))")
            #expect(sorted(decoded.tracks).map(\.frames) == sorted(reference.tracks).map(\.frames),
                    "\(label): \(decoded.tracks.map(\.codec)) \(decoded.tracks.map(\.frames)) frames")
            #expect(sorted(decoded.tracks) == sorted(reference.tracks), "\(label): the decoded frames are not the source's")
        }
        // Both video tracks' frames are counted; the gate started on track 0.
        #expect(result.progress.videoFrames == 240)
    }
}

/// Never silent: video that reaches no archive fails the job with the codec and the reason.
extension EnhancedRTMPTests {
    /// An FLV file of `messages` (tag type, timestamp, body), with its PreviousTagSize chain.
    static func flv(_ messages: [Message]) -> [UInt8] {
        var out: [UInt8] = Array("FLV".utf8) + [1, 0x05, 0, 0, 0, 9, 0, 0, 0, 0]
        for message in messages {
            let size = message.payload.count
            out += [message.typeID, UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF),
                    UInt8(message.timestamp >> 16 & 0xFF), UInt8(message.timestamp >> 8 & 0xFF), UInt8(message.timestamp & 0xFF),
                    UInt8(message.timestamp >> 24), 0, 0, 0]
            out += message.payload
            let tagSize = UInt32(size + 11)
            out += [UInt8(tagSize >> 24), UInt8(tagSize >> 16 & 0xFF), UInt8(tagSize >> 8 & 0xFF), UInt8(tagSize & 0xFF)]
        }
        return out
    }

    @Test("HEVC only on multitrack track 1 (no default track): the archive gets the audio, and the job fails naming hvc1 and track 0")
    func videoOnlyOnTrackOne() throws {
        let source = try EnhancedPeer.fixture(video: "hevc", audio: "aac")
        let root = Live.scratch("enhanced-track1")
        try EnhancedPeer.remux(source, to: root + "/plain.flv")
        var moved = 0
        let messages = try EnhancedOrigin.tags(of: [UInt8](Data(contentsOf: URL(fileURLWithPath: root + "/plain.flv")))).map { message in
            // An ex-header video message without ModEx becomes Multitrack OneTrack on track 1: 4 bits of the first byte
            // kept + packet type 6, then 0000 + the real packet type, the FourCC, the track id 1, the rest.
            let body = message.payload
            guard message.typeID == 9, body.count >= 5, body[0] & 0x80 != 0, body[0] & 0x0F != 7 else { return message }
            moved += 1
            var changed = message
            changed.payload = [body[0] & 0xF0 | 6, body[0] & 0x0F] + body[1..<5] + [1] + body[5...]
            return changed
        }
        #expect(moved > 120)
        let flv = root + "/track1.flv"
        try Data(Self.flv(messages)).write(to: URL(fileURLWithPath: flv))
        let port = try Live.freePort()
        let job = RunningJob(Self.engine, Self.options(port: port, key: "trackkey", outputs: [], archive: root + "/out/archive.flv", root: root))
        #expect(Live.wait(seconds: 5) { Self.engine.listeningPorts > 0 })
        #expect(try OBSLikePublisher.run(port: port, app: "ingest", key: "trackkey", flv: flv).contains("published"))
        let outcome = try #require(job.wait(seconds: 30), "the job did not end")
        guard case let .failure(error) = outcome else {
            Issue.record("a job whose video reached no archive succeeded")
            return
        }
        #expect(error.description.contains("hvc1 (HEVC)") && error.description.contains("track (0)"), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: root + "/out/archive.flv"))
    }
}

/// Multitrack to destinations that take one track, and a job that picks a track.
extension EnhancedRTMPTests {
    /// FFmpeg 8's multitrack FLV: HEVC + AAC on track 0, AV1 + Opus on track 1, and what FFmpeg 8 decodes of it.
    static func multitrackSource(_ root: String) throws -> (flv: String, reference: EnhancedPeer.Decoded) {
        let flv = root + "/multitrack.flv"
        try EnhancedPeer.mux([try EnhancedPeer.fixture(video: "hevc", audio: "aac"), try EnhancedPeer.fixture(video: "av1", audio: "opus")], to: flv)
        let reference = try EnhancedPeer.decode(flv)
        #expect(reference.tracks.map(\.codec) == ["hevc", "aac", "libdav1d", "opus"] && reference.errors.isEmpty,
                "\(reference.tracks.map(\.codec)) \(reference.errors)")
        return (flv, reference)
    }

    /// The multitrack type, track id and codec of every audio and video message a destination received.
    static func tracks(of messages: [Message]) -> [(multitrack: Bool, id: UInt8, codec: String)] {
        messages.compactMap { message in
            if let prefix = message.videoPrefix, !prefix.isCommand {
                return (prefix.multitrackType != nil, prefix.trackID, prefix.codec.map(RelaySession.name) ?? "?")
            }
            if let prefix = message.audioPrefix {
                switch prefix.codec {
                case let .fourCC(fourCC): return (prefix.multitrackType != nil, prefix.trackID, fourCC.description)
                case let .legacy(format): return (prefix.multitrackType != nil, prefix.trackID, "legacy \(format)")
                }
            }
            return nil
        }
    }

    @Test("multitrack to a destination that announces no CapsEx Multitrack: only the default track (0), as single-track messages; all tracks to one that does")
    func multitrackDefaultTrackForSingleTrackDestinations() throws {
        let root = Live.scratch("enhanced-default-track")
        let (flv, _) = try Self.multitrackSource(root)
        var noMultitrack = EnhancedCapabilities.relay()
        noMultitrack.capsEx = EnhancedCapabilities.CapsEx.modEx
        let single = try StuckDestination(capabilities: noMultitrack, stopsReading: false)
        defer { single.close() }
        let multi = try StuckDestination(capabilities: .relay(), stopsReading: false)
        defer { multi.close() }
        let port = try Live.freePort()
        let job = RunningJob(Self.engine, Self.options(port: port, key: "defaulttrack", outputs: [single.url, multi.url], archive: nil, root: root))
        #expect(Live.wait(seconds: 5) { Self.engine.listeningPorts > 0 })
        #expect(try OBSLikePublisher.run(port: port, app: "ingest", key: "defaulttrack", flv: flv).contains("published"))
        let result = try #require(job.wait(seconds: 30), "the job did not end").get()
        let toSingle = Self.tracks(of: single.media)
        #expect(!toSingle.isEmpty && toSingle.allSatisfy { !$0.multitrack && $0.id == 0 })
        #expect(toSingle.allSatisfy { !$0.codec.contains("av01") && !$0.codec.contains("Opus") }, "\(Set(toSingle.map(\.codec)))")
        #expect(result.progress.outputs[0].videoFrames == 120, "track 0's 120 HEVC frames")
        let toMulti = Self.tracks(of: multi.media)
        #expect(toMulti.contains { $0.multitrack && $0.id == 1 }, "the multitrack destination got track 1")
        #expect(result.progress.outputs[1].videoFrames == 240)
        #expect(Self.reports.withLockedValue { $0 }.contains { $0.contains("output 0") && $0.contains("default track (0) only") })
    }

    @Test("video_track 1 / audio_track 1: the job carries AV1 + Opus alone, frame for frame, to the archive and a multitrack destination")
    func jobPicksATrack() throws {
        let root = Live.scratch("enhanced-pick-track")
        let (flv, reference) = try Self.multitrackSource(root)
        let destination = try StuckDestination(capabilities: .relay(), stopsReading: false)
        defer { destination.close() }
        let port = try Live.freePort()
        var options = Self.options(port: port, key: "picktrack", outputs: [destination.url], archive: root + "/archive.flv", root: root)
        options.videoTrack = 1
        options.audioTrack = 1
        let job = RunningJob(Self.engine, options)
        #expect(Live.wait(seconds: 5) { Self.engine.listeningPorts > 0 })
        #expect(try OBSLikePublisher.run(port: port, app: "ingest", key: "picktrack", flv: flv).contains("published"))
        let result = try #require(job.wait(seconds: 30), "the job did not end").get()
        let archive = try EnhancedPeer.decode(root + "/archive.flv")
        #expect(archive.errors.isEmpty, "\(archive.errors.prefix(5))")
        let picked = reference.tracks.filter { $0.codec == "libdav1d" || $0.codec == "opus" }
        #expect(archive.tracks.sorted { $0.kind > $1.kind } == picked.sorted { $0.kind > $1.kind },
                "the archive: \(archive.tracks.map(\.codec)) \(archive.tracks.map(\.frames)) frames")
        let sent = Self.tracks(of: destination.media)
        #expect(!sent.isEmpty && sent.allSatisfy { !$0.multitrack && $0.id == 0 })
        #expect(sent.allSatisfy { $0.codec.contains("av01") || $0.codec.contains("Opus") }, "\(Set(sent.map(\.codec)))")
        #expect(result.progress.videoFrames == 120)
    }
}
