import Foundation
import SluiceTestSupport
import Testing

/// Damaged real media through the real binary: seeded bit flips, truncations, zeroed, duplicated and spliced
/// blocks of an MP4, an MPEG-TS, an FLV, a Matroska file, raw Annex B and ADTS, each through `sluice probe`
/// and `sluice run`. Whatever the damage: no signal, no hang, no failure without a message, no success
/// without outputs ffprobe reads, and no final output file left by a failed run.
@Suite("Mutated media")
struct MutationTests {
    /// Seconds one `sluice` run may take on a file of a few hundred kilobytes before it counts as a hang.
    static let hangTimeout = 30.0

    struct Source: CustomTestStringConvertible, Sendable {
        let name: String
        let make: @Sendable () throws -> String
        /// Outputs a run writes: the formats this input can feed.
        let outputs: [String]
        var testDescription: String { name }
    }

    static let sources: [Source] = [
        Source(name: "sample.mp4", make: {
            URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../jobs/media/sample.mp4").standardizedFileURL.path
        }, outputs: ["o.flv", "o.h264", "o.aac"]),
        Source(name: "ts", make: {
            try Fixtures.make("mutation.ts", Fixtures.video(size: "160x120") + Fixtures.audio() + ["-t", "1"] + Fixtures.x264
                + ["-bf", "2", "-c:a", "aac", "-shortest", "-f", "mpegts"])
        }, outputs: ["o.flv", "o.h264", "o.aac"]),
        Source(name: "flv", make: {
            try Fixtures.make("mutation.flv", Fixtures.video(size: "160x120") + Fixtures.audio() + ["-t", "1"] + Fixtures.x264
                + ["-c:a", "aac", "-shortest", "-f", "flv"])
        }, outputs: ["o.flv", "o.h264", "o.aac"]),
        Source(name: "mkv", make: {
            try Fixtures.make("mutation.mkv", Fixtures.video(size: "160x120") + Fixtures.audio(layout: "mono") + ["-t", "1"]
                + Fixtures.x264 + ["-c:a", "aac", "-shortest"])
        }, outputs: ["o.flv", "o.h264", "o.aac"]),
        Source(name: "h264", make: {
            try Fixtures.make("mutation.h264", Fixtures.video(size: "160x120") + ["-t", "1"] + Fixtures.x264 + ["-bf", "2", "-f", "h264"])
        }, outputs: ["o.flv", "o.h264"]),
        Source(name: "aac", make: {
            try Fixtures.make("mutation.aac", Fixtures.audio() + ["-t", "1", "-c:a", "aac", "-f", "adts"])
        }, outputs: ["o.aac", "o.flv"]),
    ]

    /// Named damaged copies of `bytes`; `other` is the next source, for splices.
    static func mutations(of bytes: [UInt8], other: [UInt8], seed: UInt64) -> [(name: String, bytes: [UInt8])] {
        var random = SeededGenerator(seed: seed)
        var result: [(String, [UInt8])] = []
        let count = bytes.count
        for flips in [1, 1, 4, 16, 64, 256] {
            var damaged = bytes
            for _ in 0..<flips {
                let bit = Int.random(in: 0..<(count * 8), using: &random)
                damaged[bit / 8] ^= 1 << UInt8(bit % 8)
            }
            result.append(("\(flips) bit flips", damaged))
        }
        // Flips confined to the first 4 KiB, where headers, parameter sets and configurations live.
        for flips in [1, 8, 32] {
            var damaged = bytes
            for _ in 0..<flips {
                let bit = Int.random(in: 0..<(min(count, 4096) * 8), using: &random)
                damaged[bit / 8] ^= 1 << UInt8(bit % 8)
            }
            result.append(("\(flips) bit flips in the head", damaged))
        }
        for fraction in [0.0, 0.01, 0.1, 0.33, 0.5, 0.9, 0.999] {
            let end = Int(Double(count) * fraction)
            result.append(("truncated at \(end)", Array(bytes.prefix(max(end, fraction == 0 ? 7 : 1)))))
        }
        for length in [188, 4096, 32768] {
            var damaged = bytes
            let start = Int.random(in: 0..<max(1, count - length), using: &random)
            for index in start..<min(count, start + length) { damaged[index] = 0 }
            result.append(("\(length) bytes zeroed at \(start)", damaged))
        }
        for length in [100, 2048, 16384] {
            let from = Int.random(in: 0..<max(1, count - length), using: &random)
            let to = Int.random(in: 0..<count, using: &random)
            var damaged = bytes
            damaged.insert(contentsOf: bytes[from..<min(count, from + length)], at: to)
            result.append(("\(length) bytes from \(from) repeated at \(to)", damaged))
        }
        result.append(("first half, then the second half of another file", Array(bytes.prefix(count / 2) + other.suffix(other.count / 2))))
        result.append(("second half, then the first half of another file", Array(bytes.suffix(count / 2) + other.prefix(other.count / 2))))
        result.append(("the file twice", bytes + bytes))
        return result
    }

    struct Run {
        var status: Int32
        var signalled: Bool
        var timedOut: Bool
        var stdout: String
        var stderr: String
        var seconds: Double
    }

    /// Runs the binary, killing it after `hangTimeout` seconds.
    static func sluice(_ arguments: [String]) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Command.sluiceBinary)
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let started = Stopwatch()
        try process.run()
        let group = DispatchGroup()
        nonisolated(unsafe) var outData = Data()
        nonisolated(unsafe) var errData = Data()
        group.enter()
        DispatchQueue.global().async {
            outData = out.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        group.enter()
        DispatchQueue.global().async {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        var timedOut = false
        if group.wait(timeout: .now() + hangTimeout) == .timedOut {
            timedOut = true
            kill(process.processIdentifier, SIGKILL)
            group.wait()
        }
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal && !timedOut,
            timedOut: timedOut, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self), seconds: started.seconds)
    }

    @Test("damaged files never crash, hang or fail silently in probe and run", arguments: sources)
    func damaged(_ source: Source) throws {
        let index = try #require(Self.sources.firstIndex { $0.name == source.name })
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try source.make())))
        let otherSource = Self.sources[(index + 1) % Self.sources.count]
        let other = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try otherSource.make())))
        // Kept (under SLUICE_TEST_WORK, which scripts/test removes) so a failure's input can be looked at.
        let folder = Fixtures.scratch("mutation-\(source.name)")
        let fileExtension = (source.name as NSString).pathExtension.isEmpty ? source.name : (source.name as NSString).pathExtension

        for (number, mutation) in Self.mutations(of: bytes, other: other, seed: UInt64(index + 1)).enumerated() {
            let input = "\(folder)/input-\(number).\(fileExtension)"
            let label = "\(source.name), \(mutation.name) (\(input))"
            try Data(mutation.bytes).write(to: URL(fileURLWithPath: input))

            let probe = try Self.sluice(["probe", "--json", input])
            #expect(!probe.signalled, "probe of \(label) died of signal \(probe.status): \(probe.stderr.suffix(2000))")
            #expect(!probe.timedOut, "probe of \(label) took longer than \(Self.hangTimeout) s")
            if probe.status == 0 {
                #expect(!probe.stdout.isEmpty, "probe of \(label) exited 0 and printed nothing")
            } else if !probe.signalled && !probe.timedOut {
                #expect(!probe.stderr.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty,
                        "probe of \(label) exited \(probe.status) without a message")
            }

            let outputFolder = "\(folder)/out-\(number)"
            try FileManager.default.createDirectory(atPath: outputFolder, withIntermediateDirectories: true)
            let outputs = source.outputs.map { "\(outputFolder)/\($0)" }
            let job = "\(folder)/job-\(number).json"
            let document: [String: Any] = ["id": "mutation-\(number)", "input": input, "outputs": outputs]
            try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: job))
            let run = try Self.sluice(["run", "--quiet", "--db", "\(folder)/jobs.sqlite", job])
            #expect(!run.signalled, "run of \(label) died of signal \(run.status): \(run.stderr.suffix(2000))")
            #expect(!run.timedOut, "run of \(label) took longer than \(Self.hangTimeout) s")
            guard !run.signalled && !run.timedOut else { continue }
            let left = (try? FileManager.default.contentsOfDirectory(atPath: outputFolder)) ?? []
            if run.status == 0 {
                for output in outputs {
                    // The format named: ffprobe cannot guess ADTS or Annex B from a file of one frame.
                    let format = ["flv": "flv", "aac": "aac", "h264": "h264"][(output as NSString).pathExtension] ?? "flv"
                    let referee = try Command.run(
                        "ffprobe", ["-v", "error", "-f", format, "-show_entries", "stream=codec_name", "-of", "csv=p=0", output],
                        check: false)
                    #expect(referee.status == 0 && !referee.text.isEmpty,
                            "run of \(label) succeeded but ffprobe cannot read \((output as NSString).lastPathComponent): \(referee.stderr)")
                }
                #expect(!left.contains { $0.hasSuffix(".part") }, "run of \(label) succeeded and left \(left)")
            } else {
                #expect(!run.stderr.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty,
                        "run of \(label) exited \(run.status) without a message")
                #expect(left.isEmpty, "run of \(label) failed (\(run.stderr.suffix(300))) and left \(left)")
            }
        }
    }

    /// Found by the damaged-file test: a Matroska file cut inside its first Cluster opened, read no packet,
    /// and the job "succeeded" with empty .h264/.aac files and a header-only FLV.
    @Test("regression: an input that ends before its first packet fails the job and leaves no output")
    func inputWithoutPackets() throws {
        let source = try #require(Self.sources.first { $0.name == "mkv" })
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try source.make())))
        let clusterID: [UInt8] = [0x1F, 0x43, 0xB6, 0x75]
        let firstCluster = try #require((0..<(bytes.count - 4)).first { Array(bytes[$0..<($0 + 4)]) == clusterID })
        let folder = Fixtures.scratch("mutation-no-packets")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let input = folder + "/headers-only.mkv"
        // Into the Cluster's first block: FFmpeg opens the file (cut at the Cluster it does not) but reads no packet.
        try Data(bytes.prefix(firstCluster + 16)).write(to: URL(fileURLWithPath: input))
        let outputs = source.outputs.map { "\(folder)/\($0)" }
        let document: [String: Any] = ["id": "no-packets", "input": input, "outputs": outputs]
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: folder + "/job.json"))

        let run = try Self.sluice(["run", "--quiet", "--db", folder + "/jobs.sqlite", folder + "/job.json"])
        #expect(run.status == 1, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("received no packets"), "stderr: \(run.stderr)")
        for output in outputs {
            #expect(!FileManager.default.fileExists(atPath: output))
            #expect(!FileManager.default.fileExists(atPath: output + ".part"))
        }
    }
}
