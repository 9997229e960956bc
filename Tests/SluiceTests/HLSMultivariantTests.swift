import Foundation
import MediaFormats
import SluiceTestSupport
import Testing
@testable import Sluice

/// A ladder in HLS (docs/JOBS.md): one media playlist per rendition and a multivariant playlist whose attributes are
/// what ffprobe reads from the renditions written, with every rendition's segments starting at the same instants.
/// ffprobe is the referee.
enum MultivariantChecks {
    /// One EXT-X-STREAM-INF of the multivariant playlist: its attributes as written, and its URI.
    struct Variant {
        var attributes: [String: String]
        var uri: String
    }

    /// The variants of the multivariant playlist at `path`, after checking its header.
    static func variants(_ path: String) throws -> [Variant] {
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(Array(lines.prefix(3)) == ["#EXTM3U", "#EXT-X-VERSION:6", "#EXT-X-INDEPENDENT-SEGMENTS"], "\(lines)")
        var variants: [Variant] = []
        for (index, line) in lines.enumerated() where line.hasPrefix("#EXT-X-STREAM-INF:") && index + 1 < lines.count {
            var attributes: [String: String] = [:]
            var rest = Substring(line.dropFirst("#EXT-X-STREAM-INF:".count))
            while let equals = rest.firstIndex(of: "=") {
                let name = String(rest[..<equals])
                rest = rest[rest.index(after: equals)...]
                let value: Substring
                if rest.first == "\"", let close = rest.dropFirst().firstIndex(of: "\"") {
                    value = rest[rest.index(after: rest.startIndex)..<close]
                    rest = rest[rest.index(after: close)...]
                } else {
                    let end = rest.firstIndex(of: ",") ?? rest.endIndex
                    value = rest[..<end]
                    rest = rest[end...]
                }
                attributes[name] = String(value)
                if rest.first == "," { rest = rest.dropFirst() }
            }
            variants.append(Variant(attributes: attributes, uri: lines[index + 1]))
        }
        return variants
    }

    /// Each segment's first video timestamp (90 kHz ticks, the track's timescale), read by ffprobe from the init
    /// segment and the segment joined; and the segments' bytes and durations.
    static func segments(_ playlistPath: String, scratch: String) throws -> (starts: [Int], sizes: [(bytes: Int, duration: Double)]) {
        let folder = (playlistPath as NSString).deletingLastPathComponent
        let playlist = try HLSMediaPlaylist(parsing: try String(contentsOfFile: playlistPath, encoding: .utf8))
        let initSegment = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + (playlist.mapURI ?? "")))
        var starts: [Int] = []
        var sizes: [(Int, Double)] = []
        for segment in playlist.segments {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + segment.uri))
            let joined = (scratch as NSString).appendingPathComponent("probe-\(UUID().uuidString.prefix(8)).mp4")
            try (initSegment + bytes).write(to: URL(fileURLWithPath: joined))
            let first = try Command.run("ffprobe", ["-v", "error", "-select_streams", "v", "-read_intervals", "%+#1",
                                                     "-show_entries", "packet=pts,flags", "-of", "csv=p=0", joined]).text
            let fields = first.split(separator: "\n").first?.split(separator: ",") ?? []
            #expect(fields.count == 2 && fields[1].hasPrefix("K"), "\(playlistPath) \(segment.uri) starts with \(first.prefix(40))")
            starts.append(fields.first.flatMap { Int($0) } ?? -1)
            sizes.append((bytes.count, segment.duration))
        }
        return (starts, sizes)
    }

    /// What ffprobe says of a rendition's video, and the CODECS string that goes with it.
    static func video(_ playlistPath: String) throws -> (width: Int, height: Int, rate: Double, codec: String) {
        let json = try Command.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                "stream=width,height,profile,level,r_frame_rate", "-of", "json", playlistPath]).stdout
        let streams = (try JSONSerialization.jsonObject(with: json) as? [String: Any])?["streams"] as? [[String: Any]] ?? []
        let stream = streams.first ?? [:]
        let rate = (stream["r_frame_rate"] as? String ?? "0/1").split(separator: "/").compactMap { Double($0) }
        let profiles = ["High": 100, "Main": 77, "Constrained Baseline": 66, "Baseline": 66]
        let profile = profiles[stream["profile"] as? String ?? ""] ?? 0
        let level = stream["level"] as? Int ?? 0
        return (stream["width"] as? Int ?? 0, stream["height"] as? Int ?? 0, rate.count == 2 && rate[1] > 0 ? rate[0] / rate[1] : 0,
                "avc1." + String(format: "%02x", profile) + "|" + String(format: "%02x", level))
    }

    /// Checks the multivariant playlist at `path` against its renditions and returns its text: RESOLUTION, FRAME-RATE
    /// and CODECS as ffprobe reads them, BANDWIDTH at least every segment's own rate, AVERAGE-BANDWIDTH all bytes over
    /// all seconds, and every rendition's segments starting on the same timestamps.
    @discardableResult
    static func check(_ path: String, uris: [String], scratch: String) throws -> String {
        let folder = (path as NSString).deletingLastPathComponent
        let variants = try variants(path)
        #expect(variants.map(\.uri) == uris)
        var starts: [[Int]] = []
        for variant in variants {
            let media = folder + "/" + variant.uri
            let probed = try video(media)
            #expect(variant.attributes["RESOLUTION"] == "\(probed.width)x\(probed.height)", "\(variant.uri): \(variant.attributes)")
            #expect(variant.attributes["FRAME-RATE"] == String(format: "%.3f", probed.rate), "\(variant.uri): \(variant.attributes)")
            let codecs = variant.attributes["CODECS"]?.split(separator: ",").map(String.init) ?? []
            let (profile, level) = (probed.codec.split(separator: "|")[0], probed.codec.split(separator: "|")[1])
            #expect(codecs.count == 2 && codecs[0].hasPrefix(profile) && codecs[0].hasSuffix(level) && codecs[1] == "mp4a.40.2",
                    "\(variant.uri): CODECS \(codecs), ffprobe \(probed.codec)")
            let segments = try segments(media, scratch: scratch)
            starts.append(segments.starts)
            let bandwidth = Double(variant.attributes["BANDWIDTH"] ?? "") ?? 0
            let average = Double(variant.attributes["AVERAGE-BANDWIDTH"] ?? "") ?? 0
            let rates = segments.sizes.filter { $0.duration >= 1 }.map { Double($0.bytes) * 8 / $0.duration }
            // EXTINF durations are printed to the microsecond: the rates read back agree to a few parts per million.
            #expect(!rates.isEmpty && rates.allSatisfy { $0 <= bandwidth * 1.0001 }, "\(variant.uri): BANDWIDTH \(bandwidth), segments \(rates)")
            let total = Double(segments.sizes.map(\.bytes).reduce(0, +)) * 8 / segments.sizes.map(\.duration).reduce(0, +)
            #expect(abs(total - average) <= average * 0.0001 + 1, "\(variant.uri): AVERAGE-BANDWIDTH \(average), measured \(total)")
            #expect(try Probe.decodeErrors(media).isEmpty, "\(variant.uri) does not decode cleanly")
        }
        // Aligned: segment i of every rendition starts at the same timestamp.
        #expect(starts.count == uris.count && starts.allSatisfy { $0 == starts[0] } && (starts.first?.count ?? 0) >= 2,
                "segment starts per rendition: \(starts)")
        print("segment starts (90 kHz) per rendition: \(starts)")
        // The encoded rungs have their keyframes where the copied rung (the input) has them, and nowhere else.
        let keyframes = try uris.map { uri in
            try Command.run("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=pts_time,flags",
                                        "-of", "csv=p=0", folder + "/" + uri]).text
                .split(separator: "\n").filter { $0.hasSuffix(",K__") || $0.contains(",K") }.map { $0.split(separator: ",")[0] }
        }
        #expect(keyframes.allSatisfy { $0 == keyframes[0] } && keyframes[0].count > (starts.first?.count ?? 0),
                "keyframes per rendition: \(keyframes)")
        // ffprobe opens the multivariant playlist and finds every rendition's video.
        // (It lists each stream under its program too: counted once by index.)
        let streams = try Command.run("ffprobe", ["-v", "error", "-show_entries", "stream=index,codec_type", "-of", "csv=p=0", path]).text
        #expect(Set(streams.split(separator: "\n").filter { $0.hasSuffix(",video") }).count == uris.count, "\(streams)")
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    static func ladder(_ folder: String, extra: String = "") -> String {
        """
        [{"url": "\(folder)/src/index.m3u8", "segment_s": 2\(extra), "video": {"mode": "copy"}},
         {"url": "\(folder)/720/index.m3u8", "segment_s": 2\(extra), "video": {"mode": "encode", "encoder": "software", "width": 1280, "height": 720, "bitrate_kbps": 1200}},
         {"url": "\(folder)/360/index.m3u8", "segment_s": 2\(extra), "video": {"mode": "encode", "encoder": "software", "width": 640, "height": 360, "bitrate_kbps": 400}}]
        """
    }
}

@Suite("HLS multivariant playlist of a file ladder", .serialized)
struct FileMultivariantTests {
    @Test("a file ladder (copy, 1280x720, 640x360) to HLS: the multivariant playlist lists what ffprobe reads, segments start together")
    func fileLadder() throws {
        let input = try Fixtures.mp4BFrames()  // 320x240, 30 fps, 3 s, a keyframe a second, B-frames
        let harness = try JobHarness("mvp-file")
        let folder = harness.path("hls")
        let outcome = try harness.run(json: """
            {"id": "mvp-file", "input": "\(input)", "hls_multivariant": "\(folder)/master.m3u8",
             "outputs": \(MultivariantChecks.ladder(folder))}
            """)
        _ = try #require(outcome.succeeded, "job did not succeed: \(outcome)")
        let text = try MultivariantChecks.check(folder + "/master.m3u8", uris: ["src/index.m3u8", "720/index.m3u8", "360/index.m3u8"],
                                                scratch: harness.folder)
        print("file ladder multivariant playlist:\n\(text)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/.master.m3u8.part"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix(".") }.isEmpty, "no part left")
    }

    @Test("a failed ladder leaves no multivariant playlist")
    func failedLadder() throws {
        let harness = try JobHarness("mvp-failed")
        let folder = harness.path("hls")
        // The .mp4 output fails when the SPS changes half way.
        let outcome = try harness.run(json: """
            {"id": "mvp-failed", "input": "\(try Fixtures.resolutionChange())", "hls_multivariant": "\(folder)/master.m3u8",
             "outputs": [{"url": "\(folder)/a/index.m3u8", "segment_s": 1}, {"url": "\(folder)/b/index.m3u8", "segment_s": 1},
                         "\(harness.path("out.mp4"))"]}
            """)
        #expect(outcome.failureMessage != nil, "\(outcome)")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        #expect(!left.contains("master.m3u8") && !left.contains { $0.hasSuffix(".part") }, "left behind: \(left)")
    }
}

@Suite("HLS multivariant playlist of a live ladder", .serialized, .enabled(if: TestRTMP.isAvailable, TestRTMP.unavailableReason))
struct LiveMultivariantTests {
    /// 1280x720 30 fps, a keyframe every second, B-frames, AAC: what an encoder sends a ladder.
    static func source() throws -> String {
        try Fixtures.make("live-720p-10s.mp4", Fixtures.video(size: "1280x720") + Fixtures.audio() + ["-t", "10"] + Fixtures.x264
                          + ["-bf", "2", "-c:a", "aac", "-aac_pns", "0", "-b:a", "96k", "-shortest"])
    }

    @Test("RTMP pull → copy + 1280x720 + 640x360 HLS: the multivariant playlist appears once every rendition has a segment, lists what ffprobe reads, segments start together")
    func liveLadder() throws {
        let source = try Self.source()
        let input = try TestRTMP.stream("mvp-src")
        let harness = try JobHarness("mvp-live")
        let folder = harness.path("live")
        let master = folder + "/master.m3u8"
        let uris = ["src/index.m3u8", "720/index.m3u8", "360/index.m3u8"]
        let publisher = try TestRTMP.publish(source, to: input)
        defer { _ = publisher.wait(seconds: 15) }
        #expect(RTMPServerStatistics.waitForPublisher(input), "the publisher never reached nginx-rtmp: \(publisher.stderr)")
        let watcher = MultivariantWatcher(path: master, media: uris.map { folder + "/" + $0 })
        let outcome = try harness.run(json: """
            {"id": "mvp-live", "input": {"url": "\(input)", "timeout_s": 5}, "hls_multivariant": "\(master)",
             "outputs": \(MultivariantChecks.ladder(folder)), "max_duration_s": 7}
            """)
        watcher.stop()
        _ = try #require(outcome.succeeded, "job did not succeed: \(outcome)")
        // While the job ran: the multivariant playlist was there, and only once every media playlist named a segment.
        #expect(!watcher.sightings.isEmpty, "no multivariant playlist was seen while the job ran")
        let sightings = watcher.sightings
        #expect(sightings.allSatisfy { $0.everyVariantHasASegment }, "\(sightings)")
        let text = try MultivariantChecks.check(master, uris: uris, scratch: harness.folder)
        print("live ladder multivariant playlist:\n\(text)")
    }

    /// A player switching renditions at a part boundary lands at the same instant in the other rendition: each
    /// segment is cut into parts of the same durations in every rendition (the copied one with the source's B-frames,
    /// the encoded ones without).
    @Test("RTMP pull → copy + 1280x720 + 640x360 Low-Latency HLS (part_s 0.5): every rendition cuts each segment into parts of the same durations")
    func liveLadderPartsAligned() throws {
        let source = try Self.source()
        let input = try TestRTMP.stream("mvp-parts-src")
        let harness = try JobHarness("mvp-parts")
        let folder = harness.path("live")
        let uris = ["src/index.m3u8", "720/index.m3u8", "360/index.m3u8"]
        let publisher = try TestRTMP.publish(source, to: input)
        defer { _ = publisher.wait(seconds: 15) }
        #expect(RTMPServerStatistics.waitForPublisher(input), "the publisher never reached nginx-rtmp: \(publisher.stderr)")
        let recorder = PlaylistRecorder(paths: uris.map { folder + "/" + $0 })
        let outcome = try harness.run(json: """
            {"id": "mvp-parts", "input": {"url": "\(input)", "timeout_s": 5}, "hls_multivariant": "\(folder)/master.m3u8",
             "outputs": \(MultivariantChecks.ladder(folder, extra: ", \"part_s\": 0.5")), "max_duration_s": 8}
            """)
        recorder.stop()
        _ = try #require(outcome.succeeded, "job did not succeed: \(outcome)")
        // Per rendition, the part durations of every completed segment any version of its playlist listed with its parts.
        let parts = recorder.versions.map { versions in
            var bySequence: [UInt64: [Double]] = [:]
            for text in versions {
                guard let playlist = try? HLSMediaPlaylist(parsing: text) else { continue }
                for (offset, segment) in playlist.segments.enumerated() where !segment.parts.isEmpty {
                    bySequence[playlist.mediaSequence + playlist.skippedSegments + UInt64(offset)] = segment.parts.map(\.duration)
                }
            }
            return bySequence
        }
        // The job's last segment is left out: it ends where max_duration_s cut each rendition, and an encoded one
        // ends without the frames its decoder still held for reordering then.
        let last = recorder.versions.compactMap { $0.last.flatMap { try? HLSMediaPlaylist(parsing: $0) } }
            .map { $0.mediaSequence + $0.skippedSegments + UInt64($0.segments.count) - 1 }
        let common = parts.dropFirst().reduce(Set(parts.first?.keys ?? [:].keys)) { $0.intersection($1.keys) }
            .filter { !last.contains($0) }.sorted()
        #expect(common.count >= 2, "segments listed with their parts in every rendition: \(common), per rendition \(parts.map { $0.keys.sorted() })")
        for sequence in common {
            let durations = parts.map { $0[sequence] ?? [] }
            // EXT-X-PART DURATION is printed to the microsecond; the frames are stamped in milliseconds.
            let aligned = durations.allSatisfy { rendition in
                rendition.count == durations[0].count && zip(rendition, durations[0]).allSatisfy { abs($0 - $1) < 0.0015 }
            }
            #expect(aligned, "segment \(sequence): part durations per rendition \(durations)")
        }
        print("part durations of segment \(common.first ?? 0) per rendition: \(parts.map { $0[common.first ?? 0] ?? [] })")
    }
}

/// Keeps every version of some playlists while a job runs, read every 20 ms.
final class PlaylistRecorder: @unchecked Sendable {
    // Reason: `seen` and `running` are guarded by `lock`; `last` is the thread's own.
    private let lock = NSLock()
    private var seen: [[String]]
    private var running = true
    private let done = DispatchSemaphore(value: 0)

    init(paths: [String]) {
        seen = paths.map { _ in [] }
        let thread = Thread { [self] in
            var last = paths.map { _ in "" }
            while lock.withLock({ running }) {
                for (index, path) in paths.enumerated() {
                    guard let data = FileManager.default.contents(atPath: path), case let text = String(decoding: data, as: UTF8.self),
                          text != last[index] else { continue }
                    last[index] = text
                    lock.withLock { seen[index].append(text) }
                }
                usleep(20_000)
            }
            done.signal()
        }
        thread.start()
    }

    /// Every version seen, per playlist, oldest first.
    var versions: [[String]] { lock.withLock { seen } }

    func stop() {
        lock.withLock { running = false }
        done.wait()
    }
}

/// Reads the multivariant playlist every 20 ms while a job runs; at each new version, whether every media playlist
/// already named a segment.
final class MultivariantWatcher: @unchecked Sendable {
    struct Sighting: Sendable {
        var text: String
        var everyVariantHasASegment: Bool
    }

    // Reason: `seen` and `running` are guarded by `lock`; `last` is the thread's own.
    private let lock = NSLock()
    private var seen: [Sighting] = []
    private var running = true
    private var last = ""
    private let done = DispatchSemaphore(value: 0)

    init(path: String, media: [String]) {
        let thread = Thread { [self] in
            while lock.withLock({ running }) {
                if let data = FileManager.default.contents(atPath: path), case let text = String(decoding: data, as: UTF8.self), text != last {
                    last = text
                    let ready = media.allSatisfy { playlist in
                        (FileManager.default.contents(atPath: playlist)).map { String(decoding: $0, as: UTF8.self).contains("#EXTINF") } ?? false
                    }
                    lock.withLock { seen.append(Sighting(text: text, everyVariantHasASegment: ready)) }
                }
                usleep(20_000)
            }
            done.signal()
        }
        thread.start()
    }

    var sightings: [Sighting] { lock.withLock { seen } }

    func stop() {
        lock.withLock { running = false }
        done.wait()
    }
}
