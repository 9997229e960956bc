import Foundation
import Testing
@testable import JobDocument

/// A job's encode cost in 720p30-equivalents, from its requested settings alone.
@Suite("Encode cost")
struct EncodeCostTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let video: String
        let audio: String
        let cost: Int
        var testDescription: String { "\(name) costs \(cost)" }

        init(_ name: String, video: String, audio: String = #"{"mode": "copy"}"#, cost: Int) {
            self.name = name
            self.video = video
            self.audio = audio
            self.cost = cost
        }
    }

    static let cases: [Case] = [
        Case("copy", video: #"{"mode": "copy"}"#, cost: 0),
        Case("drop", video: #"{"mode": "drop"}"#, cost: 0),
        Case("audio-only encode", video: #"{"mode": "copy"}"#, audio: #"{"mode": "encode", "bitrate_kbps": 128}"#, cost: 0),
        Case("720p30: the unit", video: #"{"mode": "encode", "width": 1280, "height": 720, "fps": 30}"#, cost: 1),
        Case("720p at 29.97 rounds to 1, not 2", video: #"{"mode": "encode", "width": 1280, "height": 720, "fps": 29.97}"#, cost: 1),
        Case("720p60", video: #"{"mode": "encode", "width": 1280, "height": 720, "fps": 60}"#, cost: 2),
        Case("1080p30: 2.25 rounded up", video: #"{"mode": "encode", "width": 1920, "height": 1080, "fps": 30}"#, cost: 3),
        Case("1080p60: 4.5 rounded up", video: #"{"mode": "encode", "width": 1920, "height": 1080, "fps": 60}"#, cost: 5),
        Case("2160p30", video: #"{"mode": "encode", "width": 3840, "height": 2160, "fps": 30}"#, cost: 9),
        Case("360p30 still takes a whole unit", video: #"{"mode": "encode", "width": 640, "height": 360, "fps": 30}"#, cost: 1),
        Case("no size, no fps: 1080p30 assumed", video: #"{"mode": "encode", "bitrate_kbps": 2500}"#, cost: 3),
        Case("no size at 60 fps: 1080p60 assumed", video: #"{"mode": "encode", "fps": 60}"#, cost: 5),
        Case("width only: 16:9 assumed (1280 → 720p)", video: #"{"mode": "encode", "width": 1280}"#, cost: 1),
        Case("height only: 16:9 assumed (1080 → 1920)", video: #"{"mode": "encode", "height": 1080}"#, cost: 3),
        Case("size without fps: 30 assumed", video: #"{"mode": "encode", "width": 1280, "height": 720}"#, cost: 1),
        Case("the largest picture at the highest rate", video: #"{"mode": "encode", "width": 8192, "height": 8192, "fps": 240}"#, cost: 583),
        Case("the encoder choice does not change it", video: #"{"mode": "encode", "encoder": "vaapi", "width": 1280, "height": 720}"#, cost: 1),
    ]

    @Test("a job's cost is its video encode's pixel rate over 1280×720×30, rounded up, at least 1; copy costs 0", arguments: cases)
    func cost(_ example: Case) throws {
        let json = #"{"id": "c", "input": "rtmp://h/live/k", "video": \#(example.video), "audio": \#(example.audio), "outputs": ["o.flv"]}"#
        let spec = try JobSpec.parse(Data(json.utf8))
        #expect(spec.encodeCost == example.cost)
        #expect(spec.videoEncodes.count == (example.cost > 0 ? 1 : 0))
    }

    @Test("the unit is 720p30 and the assumptions are the ones documented")
    func unit() {
        #expect(EncodeUnit.pixelRate == 27_648_000)
        #expect(EncodeUnit.picture(of: VideoSpec()) == (1920, 1080))
        var widthOnly = VideoSpec()
        widthOnly.width = 1920
        #expect(EncodeUnit.picture(of: widthOnly) == (1920, 1080))
        var heightOnly = VideoSpec()
        heightOnly.height = 720
        #expect(EncodeUnit.picture(of: heightOnly) == (1280, 720))
    }

    @Test("the cost grows with the frame rate as with the picture")
    func frameRate() {
        var video = VideoSpec()
        video.mode = .encode
        video.width = 1280
        video.height = 720
        #expect(EncodeUnit.cost(of: video) == 1)
        video.fps = 120
        #expect(EncodeUnit.cost(of: video) == 4)
    }

    @Test("the design's example (720p, fps 30 encode) costs one unit")
    func designExample() throws {
        let data = try Data(contentsOf: JobSpecTests.repository.appendingPathComponent("jobs/examples/encode-720p.json"))
        #expect(try JobSpec.parse(data).encodeCost == 1)
        let restream = try Data(contentsOf: JobSpecTests.repository.appendingPathComponent("jobs/examples/restream-rtmp.json"))
        #expect(try JobSpec.parse(restream).encodeCost == 0)
    }

    @Test("a ladder costs each distinct rung once: copy nothing, outputs sharing a setting one encode")
    func ladder() throws {
        let data = try Data(contentsOf: JobSpecTests.repository.appendingPathComponent("jobs/examples/ladder.json"))
        let spec = try JobSpec.parse(data)
        // 720p30, 480p30 and 360p30 (the RTMP and file 360p share one encoder): one unit each; the copy rung none.
        #expect(spec.videoEncodes.compactMap(\.height) == [720, 480, 360])
        #expect(spec.encodeCost == 3)
    }
}
