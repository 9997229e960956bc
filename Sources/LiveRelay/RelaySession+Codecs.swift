import Foundation
import MediaJob
import MediaFormats
import RTMP

/// The codecs a live job carries: which messages the relay can read (legacy FLV or Enhanced RTMP), what each
/// destination said it takes, and the rule that a job with video never succeeds having written none.
///
/// Destinations (Enhanced RTMP "Enhancing NetConnection connect Command"): every output announces the codecs the
/// relay carries in its connect and reads the server's `_result`:
/// - a server that lists the codec (fourCcList, or an info map with CanDecode or CanForward): sent;
/// - a server that announces codecs without this one: that output fails naming the codec (no reconnect: the next
///   connection would be answered the same), the job goes on with the others;
/// - a server that announces nothing (nginx-rtmp, FFmpeg's listen mode, most services): sent, and said once per
///   connection on stderr, since many such servers relay Enhanced RTMP without saying so and a guess that drops the
///   video would lose a stream the destination could have taken.
/// Legacy FLV codecs (H.264 and AAC in their legacy headers) go everywhere, as before Enhanced RTMP.
/// What a live job's input messages said of their codecs ("hvc1 (HEVC)"), and why the first video or audio message
/// the relay could not read was refused (an unknown FourCC, a cut header): a job whose video was all like that fails
/// naming it instead of succeeding without video.
struct InputCodecs {
    var video: String?
    var audio: String?
    var unreadableVideo: String?
    var unreadableAudio: String?
    /// "video"/"audio" once a multitrack message of that kind had a track that did not read (said once).
    var unreadableTracks: Set<String> = []
    /// The codec each video track's configuration named (`noteTrackCodecs`).
    var videoTrackCodecs: [UInt8: FLVVideoFourCC] = [:]
}

extension RelaySession {
    /// Whether the relay can read `message`'s head; the first reason it cannot is kept for the job's message.
    /// An empty audio message (RTMP's silence) is skipped without a word. A video configuration's codec is noted for
    /// its track (`noteTrackCodecs`), before any track is picked.
    func readable(_ message: Message) -> Bool {
        do {
            if message.typeID == MessageType.video.rawValue {
                let prefix = try FLVVideoTagPrefix(parsing: message.payload[...])
                if input.codecs.video == nil, let codec = prefix.codec { input.codecs.video = RelaySession.name(codec) }
                if prefix.isSequenceStart { noteTrackCodecs(prefix, of: message) }
            } else {
                guard !message.payload.isEmpty else { return false }
                let prefix = try FLVAudioTagPrefix(parsing: message.payload[...])
                if input.codecs.audio == nil { input.codecs.audio = RelaySession.name(prefix.codec) }
            }
            return true
        } catch {
            let kind = message.typeID == MessageType.video.rawValue ? "video" : "audio"
            let first = kind == "video" ? input.codecs.unreadableVideo == nil : input.codecs.unreadableAudio == nil
            guard first else { return false }
            if kind == "video" { input.codecs.unreadableVideo = "\(error)" } else { input.codecs.unreadableAudio = "\(error)" }
            // Said once; a job that relays none of that kind fails naming it when it ends (`silentMediaFailure`).
            engine.report("input \(options.inputName): dropping \(kind) messages the relay cannot read: \(error)")
            return false
        }
    }

    /// Why a job that is about to succeed must not: its input sent only video or audio the relay could not read, or it
    /// had video and an archive, or every output, wrote none of it.
    func silentMediaFailure() -> MediaJobError? {
        if options.audio != .drop, progress.audioFrames == 0, let unreadable = input.codecs.unreadableAudio {
            return .liveInput(name: options.inputName, reason: "its audio cannot be relayed: \(unreadable) (set audio.mode to drop to relay the rest)")
        }
        guard options.video != .drop else { return nil }
        if progress.videoFrames == 0 {
            guard let unreadable = input.codecs.unreadableVideo else { return nil }
            return .liveInput(name: options.inputName, reason: "its video cannot be relayed: \(unreadable) (set video.mode to drop to relay the rest)")
        }
        let codec = input.codecs.video ?? "video"
        // Outputs and archives start on a key frame of the default track: a stream without one (only track 1, say)
        // reaches none of them.
        let why = core.sawKeyframe ? "" : "; no key frame arrived on the default track (0), where outputs start"
        if let file = links.files.first(where: { $0.takesVideo && $0.failure == nil && $0.progress.videoFrames == 0 }) {
            return .output(index: file.index, name: file.name, RelayCodecError(
                description: "the input had \(progress.videoFrames) frames of \(codec) video and none reached this file\(why)"))
        }
        if links.files.isEmpty, !links.rtmp.isEmpty, links.rtmp.allSatisfy({ $0.progress.videoFrames == 0 }) {
            let reasons = links.rtmp.compactMap(\.progress.lastError)
            return .liveInput(name: options.inputName, reason: "its \(codec) video (\(progress.videoFrames) frames) reached no output\(why)"
                              + (reasons.isEmpty ? "" : " (\(reasons.joined(separator: "; ")))"))
        }
        return nil
    }

    /// Whether `output`'s destination takes `message`'s codec (see the type's comment). A refusal fails the output.
    func destinationTakes(_ message: Message, output: OutputLink, handler: RTMPClientHandler) -> Bool {
        let name: String
        let kind: String
        let acceptance: EnhancedCapabilities.Acceptance
        if let prefix = message.videoPrefix, case let .fourCC(fourCC)? = prefix.codec {
            name = RelaySession.name(.fourCC(fourCC))
            kind = "video"
            guard !output.checkedCodecs.contains(name) else { return true }
            acceptance = handler.serverCapabilities?.accepts(video: fourCC) ?? .unannounced
        } else if let prefix = message.audioPrefix, case let .fourCC(fourCC) = prefix.codec {
            name = RelaySession.name(.fourCC(fourCC))
            kind = "audio"
            guard !output.checkedCodecs.contains(name) else { return true }
            acceptance = handler.serverCapabilities?.accepts(audio: fourCC) ?? .unannounced
        } else {
            return true
        }
        switch acceptance {
        case .accepted:
            break
        case .unannounced:
            let note = "the destination announced no Enhanced RTMP codecs: sending \(kind) \(name) as Enhanced RTMP anyway"
            output.notes.append(note)
            engine.report("output \(output.index) (\(output.name)): \(note)")
        case .refused:
            let announced = handler.serverCapabilities.map(RelaySession.describe) ?? "nothing"
            outputLost(output.index, output.generation,
                       "the destination does not take \(kind) \(name) (it announced \(announced)); give this output its own "
                           + "rendition, \(kind): {\"mode\": \"encode\"}, to send it \(kind == "video" ? "H.264" : "AAC"), or set \(kind).mode to drop to send it the rest",
                       permanent: true)
            return false
        }
        output.checkedCodecs.insert(name)
        return true
    }

    // MARK: Tracks (Enhanced RTMP multitrack)

    /// Keeps only `track` of an audio or video message, as a single-track message (`FLVTrackSelection`): the job's
    /// `videoTrack`/`audioTrack`, or the default track (0) for a destination that takes no multitrack messages.
    /// False when the message carries no such track (or a later track of it does not parse: dropped, said once).
    func select(track: UInt8, of message: inout Message) -> Bool {
        let isVideo = message.typeID == MessageType.video.rawValue
        do {
            let selection = isVideo
                ? try FLVTrackSelection.video(message.payload[...], track: track, codec: distinctCodec(ofVideoTrack: track))
                : try FLVTrackSelection.audio(message.payload[...], track: track)
            switch selection {
            case .unchanged: return true
            case .dropped: return false
            case let .rewritten(payload):
                message.payload = payload
                return true
            }
        } catch {
            let kind = isVideo ? "video" : "audio"
            if !input.codecs.unreadableTracks.contains(kind) {
                input.codecs.unreadableTracks.insert(kind)
                engine.report("input \(options.inputName): dropping multitrack \(kind) messages whose tracks do not read: \(error)")
            }
            return false
        }
    }

    /// Notes the codec each video track's configuration names (before any track is picked), so a Metadata message
    /// outside multitrack can be given to the track whose codec it names (`FLVTrackSelection.video`).
    func noteTrackCodecs(_ prefix: FLVVideoTagPrefix, of message: Message) {
        guard let type = prefix.multitrackType, type != .oneTrack else {
            input.codecs.videoTrackCodecs[prefix.trackID] = prefix.codec?.fourCC
            return
        }
        for track in (try? FLVVideoData(parsing: message.payload[...]).tracks) ?? [] { input.codecs.videoTrackCodecs[track.id] = track.codec.fourCC }
    }

    /// The codec of video track `id` when no other track shares it; nil otherwise (or unknown).
    func distinctCodec(ofVideoTrack id: UInt8) -> FLVVideoFourCC? {
        guard let codec = input.codecs.videoTrackCodecs[id] else { return nil }
        return input.codecs.videoTrackCodecs.contains { $0.key != id && $0.value == codec } ? nil : codec
    }

    /// `message` as `output` takes it: unchanged, or (a multitrack message, or a Metadata message outside multitrack
    /// that may be another track's, to a destination whose connect answer announced Enhanced RTMP capabilities without
    /// CapsEx Multitrack) its default track (0) alone; nil: nothing to send. A destination that announced nothing gets
    /// every track, said once per connection, as unannounced codecs are. Legacy messages (no ex-header, most of a
    /// stream) pass without their head being read again.
    func trackView(of message: Message, for output: OutputLink, handler: RTMPClientHandler) -> Message? {
        guard let first = message.payload.first else { return message }
        let multitrack: Bool
        let metadata: Bool
        switch message.typeID {
        case MessageType.video.rawValue where first & FLVEnhancedLimits.videoExHeaderBit != 0:
            guard let prefix = message.videoPrefix else { return message }
            multitrack = prefix.multitrackType != nil
            metadata = !multitrack && prefix.packetType == .metadata
        case MessageType.audio.rawValue where first >> 4 == FLVEnhancedLimits.audioExHeaderSoundFormat:
            multitrack = message.audioPrefix?.multitrackType != nil
            metadata = false
        default:
            return message
        }
        guard multitrack || metadata else { return message }
        let capabilities = handler.serverCapabilities
        if capabilities == nil || (capabilities?.capsEx ?? 0) & EnhancedCapabilities.CapsEx.multitrack != 0 {
            if multitrack, capabilities == nil, !output.checkedCodecs.contains("multitrack") {
                output.checkedCodecs.insert("multitrack")
                let note = "the destination announced no Enhanced RTMP capabilities: sending every track (multitrack) anyway"
                output.notes.append(note)
                engine.report("output \(output.index) (\(output.name)): \(note)")
            }
            return message
        }
        if multitrack, !output.checkedCodecs.contains("default track") {
            output.checkedCodecs.insert("default track")
            let note = "the destination does not take multitrack messages: sending it the default track (0) only"
            output.notes.append(note)
            engine.report("output \(output.index) (\(output.name)): \(note)")
        }
        var single = message
        return select(track: 0, of: &single) ? single : nil
    }

    /// "hvc1 (HEVC)", "H.264 (legacy FLV)".
    static func name(_ codec: FLVVideoCodec) -> String {
        switch codec {
        case let .fourCC(fourCC): name(fourCC, [.avc1: "H.264", .hvc1: "HEVC", .av01: "AV1", .vp09: "VP9", .vp08: "VP8", .vvc1: "VVC"])
        case .legacy(.avc): "H.264 (legacy FLV)"
        case let .legacy(id): "FLV codec \(id)"
        }
    }

    /// "Opus (Opus)", "AAC (legacy FLV)".
    static func name(_ codec: FLVAudioCodec) -> String {
        switch codec {
        case let .fourCC(fourCC): name(fourCC, [.opus: "Opus", .mp4a: "AAC", .ac3: "AC-3", .ec3: "E-AC-3", .flac: "FLAC", .mp3: "MP3"])
        case .legacy(.aac): "AAC (legacy FLV)"
        case let .legacy(format): "FLV sound format \(format)"
        }
    }

    /// A FourCC with the codec's common name from `names`.
    private static func name<FourCC: Hashable & CustomStringConvertible>(_ fourCC: FourCC, _ names: [FourCC: String]) -> String {
        "\(fourCC) (\(names[fourCC] ?? "?"))"
    }

    /// What a server announced, for a message: its FourCCs (info maps first) or "no codecs".
    static func describe(_ capabilities: EnhancedCapabilities) -> String {
        let names = (capabilities.videoInfo ?? []).map(\.fourCC) + (capabilities.audioInfo ?? []).map(\.fourCC)
        let listed = names.isEmpty ? capabilities.fourCCList ?? [] : names
        return listed.isEmpty ? "no codecs" : listed.joined(separator: ", ")
    }
}

/// An output of a live job that cannot carry what the input sends.
struct RelayCodecError: Error, CustomStringConvertible {
    var description: String
}
