import Foundation

extension JobSpec {
    /// Parses and validates a job document. Throws `JobSpecError` listing every problem by key path.
    /// Size, nesting depth and repeated keys are checked first, on the bytes, so no document can exhaust the parser.
    public static func parse(_ data: Data) throws(JobSpecError) -> JobSpec {
        if let problem = DocumentShape.problem(in: data) { throw JobSpecError(id: nil, problems: [problem]) }
        let document: JSONValue
        do {
            document = try JSONValue.parse(data)
        } catch {
            throw JobSpecError(id: nil, problems: [SpecProblem(path: "", message: "not valid JSON: \(JobSpec.describe(decodingError: error))")])
        }
        return try parse(document)
    }

    public static func parse(_ document: JSONValue) throws(JobSpecError) -> JobSpec {
        var validator = SpecValidator()
        let spec = validator.job(document)
        guard let spec, validator.problems.isEmpty else {
            throw JobSpecError(id: validator.readableID, problems: validator.problems)
        }
        return spec
    }

    static func describe(decodingError error: any Error) -> String {
        if case let DecodingError.dataCorrupted(context) = error {
            let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return underlying ?? context.debugDescription
        }
        return "\(error)"
    }
}

/// Walks a job document once, collecting problems instead of stopping at the first.
struct SpecValidator {
    var problems: [SpecProblem] = []
    var readableID: String?

    mutating func problem(_ path: String, _ message: String) {
        problems.append(SpecProblem(path: path, message: message))
    }

    mutating func job(_ document: JSONValue) -> JobSpec? {
        guard case let .object(root) = document else {
            problem("", "a job must be a JSON object, got \(document.typeName)")
            return nil
        }
        var fields = Fields(object: root, path: "")
        let id = fields.string("id", required: true, limit: JobLimits.id, into: &self)
        if let id {
            if !JobSpec.isValidID(id) {
                problem("id", "must match \(JobSpec.idPattern), got \(quoted(id))")
            } else {
                readableID = id
            }
        }
        let input = inputSpec(fields.take("input"), required: true)
        let video = videoSpec(fields.take("video"))
        let audio = audioSpec(fields.take("audio"))
        let outputs = outputSpecs(fields.take("outputs"))
        let maxDuration = fields.number(JobLimits.maxDuration, into: &self) ?? 0
        let priority = fields.integer(JobLimits.priority, into: &self) ?? 0
        let maxAttempts = fields.integer(JobLimits.maxAttempts, into: &self) ?? JobSpec.defaultMaxAttempts
        let reconnect = reconnectSpec(fields.take("reconnect"))
        let fallback = fallbackSpec(fields.take("fallback"), input: input)
        let multivariant = fields.string("hls_multivariant", required: false, limit: JobLimits.hlsMultivariant, into: &self)
        fields.reportUnknown(into: &self)
        if let multivariant { checkMultivariant(multivariant, outputs: outputs) }

        for (index, output) in outputs.enumerated() {
            let path = "outputs[\(index)]"
            // An output's own object replaces the job's; the message names whichever applies.
            let outputVideo = output.video ?? video
            let outputAudio = output.audio ?? audio
            let videoKey = output.video == nil ? "video.mode" : "\(path).video.mode"
            let audioKey = output.audio == nil ? "audio.mode" : "\(path).audio.mode"
            switch output.format {
            case .adts where outputAudio.mode == .drop:
                problem(path, "an ADTS output needs audio, but \(audioKey) is drop")
            case .annexb where outputVideo.mode == .drop:
                problem(path, "an Annex B output needs video, but \(videoKey) is drop")
            case .flv, .mp4, .mpegts, .hls:
                if outputVideo.mode == .drop && outputAudio.mode == .drop {
                    problem(path, "an \(output.format.displayName) output needs audio or video, but both are dropped")
                }
            default: break
            }
            // A file of one stream kind cannot carry the other: a setting for it would be silently ignored.
            if output.format == .adts, let own = output.video, own.mode != .drop {
                problem("\(path).video", "an ADTS output carries no video; leave video out of it")
            }
            if output.format == .annexb, outputVideo.mode == .encode,
               OutputFormat.hevcExtensions.contains(SpecValidator.pathExtension(of: output.url).lowercased()) {
                problem(videoKey, "encode makes H.264, which an HEVC Annex B file (\(path).url) cannot hold; copy HEVC into it, or name it .h264")
            }
            if output.format == .annexb, let own = output.audio, own.mode != .drop {
                problem("\(path).audio", "an Annex B output carries no audio; leave audio out of it")
            }
        }
        let overridden = outputs.contains { $0.video != nil || $0.audio != nil }
        if video.mode == .drop && audio.mode == .drop && !overridden { problem("", "video and audio are both dropped: nothing to do") }
        // A file input's playlist is VOD, written once at the end: there is no live edge for parts to bring closer.
        for (index, output) in outputs.enumerated() where output.partSeconds != nil {
            if let input, !input.isNetwork { problem("outputs[\(index)].part_s", "needs a live input (rtmp://, rtmps://, srt:// or rtsp://); a file input's HLS is VOD, which has no parts") }
        }
        checkWebRTC(input: input, outputs: outputs)
        if let input, input.listen, !input.isNetwork { problem("input.listen", "listen needs an rtmp://, rtmps://, srt:// or whip:// URL") }
        if let input, input.isSRT {
            checkSRTInput(input)
        } else if let input, input.listen, input.isNetwork, !input.isRTSP, !input.isWHIP {
            checkListenURL(input.url)
        }

        guard let id, let input, problems.isEmpty else { return nil }
        return JobSpec(
            id: id, input: input, video: video, audio: audio, outputs: outputs,
            maxDurationSeconds: maxDuration, priority: priority, maxAttempts: maxAttempts,
            document: document, redactedDocument: JobSpec.redact(document), reconnect: reconnect, fallback: fallback,
            hlsMultivariant: multivariant
        )
    }

    private mutating func inputSpec(_ value: JSONValue?, required: Bool) -> InputSpec? {
        switch value {
        case nil:
            problem("input", "is required")
            return nil
        case let .string(url)?:
            guard checkLength(url, JobLimits.inputURL, path: "input"), checkInputURL(url, path: "input") else { return nil }
            return InputSpec(url: url, listen: false, timeoutSeconds: InputSpec.defaultTimeoutSeconds)
        case let .object(object)?:
            var fields = Fields(object: object, path: "input")
            let url = fields.string("url", required: true, limit: JobLimits.inputURL, into: &self)
            let listen = fields.bool("listen", into: &self) ?? false
            let timeout = fields.number(JobLimits.inputTimeout, into: &self) ?? InputSpec.defaultTimeoutSeconds
            let fps = fields.number(JobLimits.inputFPS, into: &self)
            let realtime = fields.bool("realtime", into: &self)
            let videoTrack = fields.integer(JobLimits.inputVideoTrack, into: &self)
            let audioTrack = fields.integer(JobLimits.inputAudioTrack, into: &self)
            let transport = fields.choice("transport", RTSPTransportChoice.self, into: &self)
            let token = fields.string("token", required: false, limit: JobLimits.inputToken, into: &self)
            fields.reportUnknown(into: &self)
            guard let url, checkInputURL(url, path: "input.url") else { return nil }
            let spec = InputSpec(url: url, listen: listen, timeoutSeconds: timeout, fps: fps, realtime: realtime,
                                 videoTrack: videoTrack, audioTrack: audioTrack, rtspTransport: transport, token: token)
            if transport != nil, !spec.isRTSP { problem("input.transport", "is for RTSP inputs (rtsp:// or rtsps://)") }
            if let token { checkInputToken(token, of: spec) }
            if listen, spec.isRTSP { problem("input.listen", "RTSP inputs are pulled from the camera; listen is for rtmp://, rtmps:// and srt://") }
            // A file's streams are libavformat's; tracks are Enhanced RTMP's.
            for (track, key) in [(videoTrack, "video_track"), (audioTrack, "audio_track")] where track != nil && (!spec.isNetwork || spec.isSRT || spec.isRTSP) {
                problem("input.\(key)", "needs an RTMP input (rtmp:// or rtmps://): tracks are Enhanced RTMP multitrack ids")
            }
            return spec
        case let other?:
            problem("input", "must be a URL string or an object, got \(other.typeName)")
            return nil
        }
    }

    private mutating func checkInputURL(_ url: String, path: String) -> Bool {
        guard !url.isEmpty else {
            problem(path, "must not be empty")
            return false
        }
        let scheme = SpecValidator.scheme(of: url)
        if let scheme, !SpecValidator.inputSchemes.contains(scheme) {
            problem(path, "protocol \(quoted(scheme + "://")) is not allowed; use a file path, file://, rtmp://, rtmps://, srt://, rtsp://, rtsps:// or whip://")
            return false
        }
        if scheme == "whip", !checkWHIPURL(url, path: path) { return false }
        if scheme == "srt" {
            do throws(SRTAddressError) { try SpecValidator.checkSRTAddress(url) } catch {
                problem(path, error.description)
                return false
            }
        }
        return true
    }

    /// The URL scheme, when the string has one (`C:` style drive letters do not occur on Linux).
    static func scheme(of url: String) -> String? {
        guard let colon = url.firstIndex(of: ":") else { return nil }
        let scheme = url[..<colon]
        guard let first = scheme.first, first.isLetter,
              scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }),
              url[colon...].hasPrefix("://") else { return nil }
        return scheme.lowercased()
    }

    /// The extension of a path's last component, as `NSString.pathExtension` reads it ("a/b.flv/" → "flv",
    /// ".flv" → ""). Not NSString's: on Linux it traps on slash runs such as "///a//" (found by fuzzing).
    static func pathExtension(of path: String) -> String {
        var name = Substring(path)
        while name.hasSuffix("/") { name = name.dropLast() }
        if let slash = name.lastIndex(of: "/") { name = name[name.index(after: slash)...] }
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }

    /// A `video` object: the job's (`path` "video") or one output's (`outputs[2].video`).
    private mutating func videoSpec(_ value: JSONValue?, path: String = "video") -> VideoSpec {
        var spec = VideoSpec()
        guard var fields = streamFields(value, path: path) else { return spec }
        spec.mode = fields.choice("mode", StreamMode.self, into: &self) ?? .copy
        spec.encoder = fields.choice("encoder", VideoEncoderChoice.self, into: &self) ?? .auto
        spec.device = fields.string("device", required: false, limit: JobLimits.device, into: &self) ?? VideoSpec.defaultDevice
        spec.bitrateKbps = fields.integer(JobLimits.videoBitrate, into: &self)
        spec.width = fields.integer(JobLimits.width, into: &self)
        spec.height = fields.integer(JobLimits.height, into: &self)
        spec.fps = fields.number(JobLimits.videoFPS, into: &self)
        spec.gopSeconds = fields.number(JobLimits.gop, into: &self)
        if let profile = fields.string("profile", required: false, into: &self) {
            if VideoSpec.profiles.contains(profile) { spec.profile = profile } else {
                problem("\(path).profile", "must be one of \(VideoSpec.profiles.joined(separator: ", ")), got \(quoted(profile))")
            }
        }
        finish(fields, encodeOnly: ["encoder", "device", "bitrate_kbps", "width", "height", "fps", "gop_s", "profile"], mode: spec.mode)
        return spec
    }

    /// An `audio` object: the job's (`path` "audio") or one output's.
    private mutating func audioSpec(_ value: JSONValue?, path: String = "audio") -> AudioSpec {
        var spec = AudioSpec()
        guard var fields = streamFields(value, path: path) else { return spec }
        spec.mode = fields.choice("mode", StreamMode.self, into: &self) ?? .copy
        spec.bitrateKbps = fields.integer(JobLimits.audioBitrate, into: &self)
        spec.sampleRate = fields.integer(JobLimits.sampleRate, into: &self)
        spec.channels = fields.integer(JobLimits.channels, into: &self)
        finish(fields, encodeOnly: ["bitrate_kbps", "sample_rate", "channels"], mode: spec.mode)
        return spec
    }

    /// The fields of a `video` or `audio` object; nil when there is none, or (a problem) it is not an object.
    private mutating func streamFields(_ value: JSONValue?, path: String) -> Fields? {
        guard let value else { return nil }
        guard case let .object(object) = value else {
            problem(path, "must be an object, got \(value.typeName)")
            return nil
        }
        return Fields(object: object, path: path)
    }

    /// Reports the object's unknown keys, and the encode settings it has while its mode is not encode.
    private mutating func finish(_ fields: Fields, encodeOnly keys: [String], mode: StreamMode) {
        fields.reportUnknown(into: &self)
        guard mode != .encode else { return }
        for key in keys where fields.object[key] != nil {
            problem("\(fields.path).\(key)", "only applies when \(fields.path).mode is encode")
        }
    }

    private mutating func outputSpecs(_ value: JSONValue?) -> [OutputSpec] {
        guard let value else {
            problem("outputs", "is required (\(JobLimits.outputs.lowerBound) to \(JobLimits.outputs.upperBound) outputs)")
            return []
        }
        guard case let .array(items) = value else {
            problem("outputs", "must be an array, got \(value.typeName)")
            return []
        }
        guard JobLimits.outputs.contains(items.count) else {
            // More than the limit are not read at all: the count alone refuses the job.
            problem("outputs", "must hold \(JobLimits.outputs.lowerBound) to \(JobLimits.outputs.upperBound) outputs, got \(items.count)")
            return []
        }
        var outputs: [OutputSpec] = []
        var seen: [String: Int] = [:]
        for (index, item) in items.enumerated() {
            let path = "outputs[\(index)]"
            var url: String?
            var format: OutputFormat?
            var formatGiven = false
            var video: VideoSpec?
            var audio: AudioSpec?
            var segment: Double?
            var window: Int?
            var part: Double?
            var retain: Int?
            var retainBytes: Int?
            var token: String?
            switch item {
            case let .string(text):
                guard checkLength(text, JobLimits.outputURL, path: "\(path).url") else { continue }
                url = text
            case let .object(object):
                var fields = Fields(object: object, path: path)
                url = fields.string("url", required: true, limit: JobLimits.outputURL, into: &self)
                formatGiven = object["format"] != nil
                format = fields.choice("format", OutputFormat.self, into: &self)
                if let value = fields.take("video") { video = videoSpec(value, path: "\(path).video") }
                if let value = fields.take("audio") { audio = audioSpec(value, path: "\(path).audio") }
                segment = fields.number(JobLimits.segment, into: &self)
                window = fields.integer(JobLimits.window, into: &self)
                part = fields.number(JobLimits.part, into: &self)
                retain = fields.integer(JobLimits.retain, into: &self)
                retainBytes = fields.integer(JobLimits.retainBytes, into: &self)
                token = fields.string("token", required: false, limit: JobLimits.outputToken, into: &self)
                fields.reportUnknown(into: &self)
            default:
                problem(path, "must be a URL string or an object, got \(item.typeName)")
                continue
            }
            guard let url else { continue }
            guard !url.isEmpty else {
                problem("\(path).url", "must not be empty")
                continue
            }
            let scheme = SpecValidator.scheme(of: url)
            if let scheme, !SpecValidator.outputSchemes.contains(scheme) {
                problem("\(path).url", "protocol \(quoted(scheme + "://")) is not allowed; use a path, file://, rtmp://, rtmps://, srt:// or whep://")
                continue
            }
            let isSRT = scheme == "srt"
            let isWHEP = scheme == "whep"
            let isNetwork = scheme == "rtmp" || scheme == "rtmps" || isSRT || isWHEP
            if isWHEP, !checkWHEPOutput(url, path: path, audio: audio) { continue }
            if let token, !checkOutputToken(token, isWHEP: isWHEP, path: path) { continue }
            if isSRT {
                do throws(SRTAddressError) { try SpecValidator.checkSRTAddress(url) } catch {
                    problem("\(path).url", error.description)
                    continue
                }
            }
            if formatGiven && format == nil { continue }
            if format == nil {
                if isSRT {
                    format = .mpegts
                } else if isNetwork {
                    format = .flv
                } else {
                    let ext = SpecValidator.pathExtension(of: url)
                    format = OutputFormat.forExtension(ext)
                    if format == nil {
                        problem("\(path).url", "cannot tell the format from \(ext.isEmpty ? "a path without an extension" : "the extension .\(ext)"); name one with \"format\": \(OutputFormat.allCases.map(\.rawValue).joined(separator: ", "))")
                        continue
                    }
                }
            }
            if isSRT && format != .mpegts {
                problem("\(path).format", "SRT outputs carry MPEG-TS, not \(format?.rawValue ?? "?")")
                continue
            }
            if isWHEP && format != .flv {
                problem("\(path).format", "WHEP outputs carry the job's stream over WebRTC; name no format")
                continue
            }
            if isNetwork && !isSRT && format != .flv {
                problem("\(path).format", "RTMP outputs carry FLV, not \(format?.rawValue ?? "?")")
                continue
            }
            if let previous = seen[url] {
                problem("\(path).url", "is the same as outputs[\(previous)].url")
                continue
            }
            seen[url] = index
            guard let format, segmentsAllowed(format: format, isNetwork: isNetwork, url: url, segment: segment, window: window,
                                              retains: retain != nil || retainBytes != nil, path: path)
            else { continue }
            if format != .hls, part != nil {
                problem("\(path).part_s", "applies to HLS outputs (.m3u8) only")
                continue
            }
            if let part {
                let ratio = (segment ?? OutputSpec.defaultSegmentSeconds) / part
                if ratio.rounded() < JobLimits.minPartsPerSegment || abs(ratio - ratio.rounded()) > JobLimits.partsPerSegmentSlack {
                    problem("\(path).part_s", "segment_s (\(JobLimits.format(segment ?? OutputSpec.defaultSegmentSeconds))) must be a whole number of parts, at least 2: \(JobLimits.format(part)) s parts make \(JobLimits.format((ratio * 100).rounded() / 100))")
                    continue
                }
            }
            outputs.append(OutputSpec(url: url, format: format, video: video, audio: audio, segmentSeconds: segment, window: window,
                                      retain: retain, retainBytes: retainBytes.map(Int64.init), partSeconds: part, token: token))
        }
        return outputs
    }

    /// True when `text` fits the limit; otherwise records the problem (its length, never its content).
    mutating func checkLength(_ text: String, _ limit: TextLimit?, path: String) -> Bool {
        guard let limit else { return true }
        let length = text.unicodeScalars.count
        guard length <= limit.maxLength else {
            problem(path, "must be at most \(limit.maxLength) characters, got \(length)")
            return false
        }
        return true
    }
}
