import Foundation
import MediaFormats
import Testing

/// FFmpeg 8 (PyAV, through scripts/lib/enhanced-rtmp-peer.py's `decode`) as the referee for enhanced FLV, which
/// Debian's FFmpeg 5.1 cannot read; and a walk over the tags of an FLV file that says how its video was written.
enum EnhancedReferee {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../scripts/lib/enhanced-rtmp-peer.py").standardizedFileURL.path

    /// Whether PyAV imports (scripts/bootstrap installs it). Under CI the suites run regardless, so a missing PyAV fails.
    static let isAvailable: Bool = {
        if ProcessInfo.processInfo.environment["CI"] == "true" { return true }
        return (try? Command.run("/usr/bin/env", ["python3", "-c", "import av"], check: false))?.status == 0
    }()
    static let unavailableReason: Comment = "PyAV (pip's av) is missing: scripts/bootstrap installs it"

    /// What FFmpeg 8 decoded from a file: per kind the decoder, frame count and an MD5 per frame; every error it logged.
    struct Decoded: Decodable {
        struct Kind: Decodable {
            var codec: String
            var frames: Int
            var hashes: [String]
        }
        var video: Kind?
        var audio: Kind?
        var errors: [String]
    }

    static func decode(_ path: String) throws -> Decoded {
        let json = path + ".decoded.json"
        _ = try Command.run("/usr/bin/env", ["python3", script, "decode", path, "--json", json])
        return try JSONDecoder().decode(Decoded.self, from: Data(contentsOf: URL(fileURLWithPath: json)))
    }

    /// How an FLV file's video was written.
    struct VideoTags {
        var fourCCs: Set<String> = []
        var sequenceStarts = 0
        var codedFrames = 0
        var codedFramesX = 0
        var keyframes = 0
        var legacyTags = 0
        var videocodecid: Double?
    }

    static func videoTags(_ path: String) throws -> VideoTags {
        var reader = FLVReader()
        reader.append(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        var tags = VideoTags()
        while let tag = try reader.nextTag() {
            switch tag.header.tagType {
            case .scriptData:
                let script = try tag.scriptData()
                if script.name == "onMetaData" { tags.videocodecid = script.value["videocodecid"]?.numberValue }
            case .video:
                let data = try tag.videoData()
                guard data.isEnhanced else {
                    tags.legacyTags += 1
                    continue
                }
                tags.fourCCs.formUnion(data.tracks.compactMap { $0.codec.fourCC?.description })
                switch data.packetType {
                case .sequenceStart: tags.sequenceStarts += 1
                case .codedFrames: tags.codedFrames += 1
                case .codedFramesX: tags.codedFramesX += 1
                default: break
                }
                if data.isKeyframe { tags.keyframes += 1 }
            case .audio:
                continue
            }
        }
        return tags
    }
}
