import Foundation
import MediaEngine

/// A validated job turned into pipeline options: paths resolved by the policy, names redacted.
public struct JobPlan: Sendable {
    public var spec: JobSpec
    public var options: PipelineOptions

    /// Demuxers copy mode reads; others (playlists, concat lists) could reach files or hosts the job
    /// never named.
    /// The last four are for encode mode (MPEG-2 program streams, MP3, AVI, WAV); none of them opens other files.
    public static let allowedDemuxers = "mov,mp4,m4a,3gp,3g2,mj2,flv,live_flv,mpegts,matroska,webm,h264,aac,mpeg,mp3,avi,wav"

    public enum PlanError: Error, Sendable, CustomStringConvertible {
        case path(PathPolicy.Refusal)
        case notAvailable(String)
        case directory(path: String, reason: String)
        public var description: String {
            switch self {
            case let .path(refusal): return "path refused: \(refusal)"
            case let .notAvailable(what): return what
            case let .directory(path, reason): return "cannot create directory \(path): \(reason)"
            }
        }
    }

    public init(spec: JobSpec, paths: PathPolicy) throws(PlanError) {
        self.spec = spec
        let input: String
        do { input = try paths.resolveInput(spec.input.url) } catch { throw .path(error) }
        let isFileInput = !spec.input.isNetwork
        var options = PipelineOptions(inputURL: isFileInput ? "file:" + input : input, inputName: spec.redactedInput)
        if isFileInput {
            options.inputOptions["protocol_whitelist"] = "file"
            options.inputOptions["format_whitelist"] = JobPlan.allowedDemuxers
        } else {
            options.inputOptions["protocol_whitelist"] = "rtmp,rtmps,tcp,tls"
            options.inputOptions["rw_timeout"] = String(Int64(spec.input.timeoutSeconds * 1_000_000))
            // FFmpeg's rtmp listener: one publisher on the URL's host and port (never the `timeout`
            // option, which means the same but in seconds and without our interrupter).
            if spec.input.listen { options.inputOptions["listen"] = "1" }
            options.liveInput = true
        }
        options.reconnect = spec.reconnect.policy
        options.inputTimeout = spec.input.timeoutSeconds
        options.inputFrameRate = spec.input.fps
        options.realtime = spec.input.realtime ?? (isFileInput && spec.outputs.contains { $0.isNetwork })
        options.maxDuration = spec.maxDurationSeconds > 0 ? spec.maxDurationSeconds : nil
        options.video = JobPlan.videoHandling(spec.video, live: spec.input.isNetwork || spec.input.listen)
        options.audio = JobPlan.audioHandling(spec.audio)
        for output in spec.outputs {
            let kind: OutputKind
            switch output.format {
            case .flv: kind = .flv
            case .adts: kind = .adts
            case .annexb: kind = .annexB
            }
            if output.isNetwork {
                options.outputs.append(OutputDescription(target: .network(url: output.url), kind: kind, name: output.redactedURL))
            } else {
                let path: String
                do { path = try paths.resolveOutput(output.url) } catch { throw .path(error) }
                options.outputs.append(OutputDescription(target: .file(path: path), kind: kind, name: output.url))
            }
        }
        self.options = options
    }

    /// Creates the directories file outputs will be written in.
    public func createOutputDirectories() throws(PlanError) {
        for output in options.outputs {
            guard case let .file(path) = output.target else { continue }
            // URL's, not NSString's: on Linux NSString traps on a one-letter name ("o") or slash runs ("///a//").
            let directory = path.contains("/") ? URL(fileURLWithPath: path).deletingLastPathComponent().path : ""
            guard !directory.isEmpty else { continue }
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw .directory(path: directory, reason: (error as NSError).localizedDescription)
            }
        }
    }
}
