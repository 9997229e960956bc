import Foundation
import MediaEngine
import MediaJob
import JobDocument

/// A validated job turned into job options: paths resolved by the policy, names redacted.
public struct JobPlan: Sendable {
    public var spec: JobSpec
    public var options: MediaJobOptions

    /// The paths of the job's file outputs, as the job will create them.
    public var filePaths: [String] {
        options.outputs.compactMap { output in
            if case let .file(path) = output.target { return path }
            return nil
        }
    }

    /// Demuxers copy mode reads; others (playlists, concat lists) could reach files or hosts the job
    /// never named.
    /// The last four are for encode mode (MPEG-2 program streams, MP3, AVI, WAV); none of them opens other files.
    public static let allowedDemuxers = "mov,mp4,m4a,3gp,3g2,mj2,flv,live_flv,mpegts,matroska,webm,h264,aac,mpeg,mp3,avi,wav"

    public enum PlanError: Error, Sendable, CustomStringConvertible {
        case path(PathPolicy.Refusal)
        case notAvailable(String)
        public var description: String {
            switch self {
            case let .path(refusal): return "path refused: \(refusal)"
            case let .notAvailable(what): return what
            }
        }
    }

    public init(spec: JobSpec, paths: PathPolicy) throws(PlanError) {
        self.spec = spec
        let input: String
        do { input = try paths.resolveInput(spec.input.url) } catch { throw .path(error) }
        let isFileInput = !spec.input.isNetwork
        var options = MediaJobOptions(inputURL: isFileInput ? "file:" + input : input, inputName: spec.redactedInput)
        if case let .rooted(inputRoot, outputRoot) = paths {
            // Files are opened again from these roots without following links (a link may appear after this check).
            options.fileRoots = FileRoots(input: PathPolicy.resolvedRoot(inputRoot), output: PathPolicy.resolvedRoot(outputRoot))
        }
        if isFileInput {
            options.inputFile = input
            options.inputOptions["protocol_whitelist"] = "file"
            options.inputOptions["format_whitelist"] = JobPlan.allowedDemuxers
        } else {
            // The relay engine pulls, or waits on the shared ingest listener: libavformat never sees a network URL.
            if spec.input.listen { options.inputOptions["listen"] = "1" }
            options.liveInput = true
            options.rtspOverUDP = spec.input.rtspTransport == .udp
            options.inputToken = spec.input.token
            // A camera's G.711 and a WHIP publisher's Opus are encoded to AAC on the job's loop; libav is loaded only
            // when one is.
            options.edgeAudioEncoder = EdgeAACEncoderMaker()
        }
        options.partOwner = PartOwner(jobID: spec.id)
        options.reconnect = spec.reconnect.policy
        options.inputTimeout = spec.input.timeoutSeconds
        options.inputFrameRate = spec.input.fps
        // Whole numbers 0…255 (`JobLimits.inputVideoTrack`), checked by the validator.
        options.videoTrack = spec.input.videoTrack.flatMap(UInt8.init(exactly:))
        options.audioTrack = spec.input.audioTrack.flatMap(UInt8.init(exactly:))
        options.realtime = spec.input.realtime ?? (isFileInput && spec.outputs.contains { $0.isNetwork })
        options.maxDuration = spec.maxDurationSeconds > 0 ? spec.maxDurationSeconds : nil
        if let fallback = spec.fallback {
            options.fallback = try JobPlan.fallback(fallback, paths: paths)
        }
        let live = spec.input.isNetwork || spec.input.listen
        let aligned = JobPlan.keyframeAlignedVideo(spec, live: live)
        options.video = JobPlan.videoHandling(spec.video, live: live, followsInputKeyframes: aligned.contains(spec.video))
        options.audio = JobPlan.audioHandling(spec.audio)
        for output in spec.outputs {
            // An output's own rendition replaces the job's for it; a WHEP output takes an encode job's as its own, at
            // the viewers' profile (`whepVideo`).
            let own = output.video ?? (output.isWHEP && spec.video.mode == .encode ? spec.video : nil)
            let video = own.map { JobPlan.videoHandling(output.isWHEP ? JobPlan.whepVideo($0) : $0, live: live,
                                                        followsInputKeyframes: aligned.contains($0)) }
            let audio = output.audio.map { JobPlan.audioHandling($0) }
            let kind: OutputKind
            switch output.format {
            case .flv: kind = .flv
            case .adts: kind = .adts
            case .annexb: kind = .annexB
            case .mp4: kind = .mp4
            case .mpegts: kind = .mpegts
            case .hls: kind = .hls
            }
            let hls = output.format == .hls
                ? HLSSettings(segmentSeconds: output.segmentSeconds ?? OutputSpec.defaultSegmentSeconds, window: output.window ?? 0,
                              isVOD: isFileInput, partSeconds: output.partSeconds)
                : nil
            if output.isNetwork {
                var description = OutputDescription(target: .network(url: output.url), kind: kind, name: output.redactedURL, video: video, audio: audio)
                description.token = output.token
                options.outputs.append(description)
            } else {
                let path: String
                do { path = try paths.resolveOutput(output.url) } catch { throw .path(error) }
                options.outputs.append(OutputDescription(target: .file(path: path), kind: kind, name: output.url,
                                                         video: video, audio: audio, hls: hls,
                                                         segments: try JobPlan.segmentSettings(output, path: path)))
            }
        }
        if let multivariant = spec.hlsMultivariant {
            options.multivariant = try JobPlan.multivariant(multivariant, outputs: options.outputs, paths: paths)
        }
        self.options = options
    }

    /// The job's fallback with its slate resolved under the input root and checked: a slate that is outside the root,
    /// missing or not a picture fails the job before any output is touched.
    static func fallback(_ spec: FallbackSpec, paths: PathPolicy) throws(PlanError) -> FallbackOptions {
        var slate: String?
        var root: String?
        if let given = spec.slate {
            do { slate = try paths.resolveInput(given) } catch { throw .path(error) }
            if case let .rooted(inputRoot, _) = paths { root = PathPolicy.resolvedRoot(inputRoot) }
        }
        do {
            let maker = try SlateMaker(slate: slate, root: root)
            return FallbackOptions(afterSeconds: spec.afterSeconds, maxSeconds: spec.maxSeconds, maker: maker)
        } catch {
            throw .notAvailable(error.description)
        }
    }
}
