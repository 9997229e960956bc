// RFC 6184 §8.2.2 H.264 offer/answer (packetization-mode, profile-level-id, level-asymmetry-allowed); RFC 7798 §7.2.2
// H.265; the AOMedia AV1 RTP payload format §7.2.2, RFC 9628 §6.2 and RFC 7741 §6.2 (AV1, VP9, VP8: any profile);
// RFC 7587 §7 Opus.

/// Which offered payload type a track takes: H.264 for video (and, received, H.265 when no H.264 is offered, then AV1,
/// VP9, VP8),
/// Opus 48000/2 for audio, preferring the offer's order.
struct WebRTCCodecChoice {
    /// The chosen payload type and its rtpmap.
    let payloadType: UInt8
    let map: MediaDescription.RTPMap

    /// The payload type for `media`, or a reason naming what was offered instead. `sending` is our H.264 stream's
    /// profile-level-id when we send (WHEP), nil when we receive (WHIP).
    static func choose(in media: MediaDescription, kind: WebRTCNegotiatedTrack.Kind, sending: H264ProfileLevelID?) -> Result<WebRTCCodecChoice, Refusal> {
        let offered = media.payloadTypes.compactMap { type in media.rtpMaps[type].map { (type, $0) } }
        let candidates: [(UInt8, MediaDescription.RTPMap)]
        switch kind {
        // H.264 first even after an H.265 the offer prefers: every output carries it, legacy RTMP and WHEP included.
        case .video:
            candidates = h264Candidates(offered, media: media, sending: sending)
                + (sending == nil ? h265Candidates(offered, media: media) + Self.offered(.av1, in: offered) + Self.offered(.vp9, in: offered)
                    + Self.offered(.vp8, in: offered) : [])
        case .audio: candidates = offered.filter { WebRTCCodec(encodingName: $0.1.encodingName) == .opus && $0.1.clockRate == 48000 && $0.1.channels == 2 }
        }
        if let (type, map) = candidates.first { return .success(WebRTCCodecChoice(payloadType: type, map: map)) }
        var names: [String] = []
        for (_, map) in offered {
            let codec = WebRTCCodec(encodingName: map.encodingName)
            if codec.isMedia, !names.contains(codec.description) { names.append(codec.description) }
        }
        let wanted = kind == .video ? (sending == nil ? "H.264, H.265, AV1, VP9 or VP8" : "H.264") : "Opus 48000/2"
        let what = names.isEmpty ? "no codec with an rtpmap" : names.joined(separator: ", ")
        let which = offered.contains { WebRTCCodec(encodingName: $0.1.encodingName) == .h264 } && kind == .video
            ? (sending.map { "; no H.264 payload type with packetization-mode=1 decodes profile-level-id \($0.text)" }
               ?? "; no H.264 payload type with packetization-mode 0 or 1")
            : ""
        return .failure(Refusal(reason: "the offer's \(kind.rawValue) is \(what)\(which); this job takes \(wanted)"))
    }

    /// H.264 payload types we can take, best first. Receiving: packetization-mode 1, then 0 (single NAL units), any
    /// profile. Sending: mode 1 only (we fragment), a profile that decodes ours, its level ≥ ours unless
    /// level-asymmetry-allowed=1 (then the offer's level is only what it would send); an exact profile first.
    private static func h264Candidates(_ offered: [(UInt8, MediaDescription.RTPMap)], media: MediaDescription,
                                       sending: H264ProfileLevelID?) -> [(UInt8, MediaDescription.RTPMap)] {
        var ranked: [(rank: Int, order: Int, type: UInt8, map: MediaDescription.RTPMap)] = []
        for (order, (type, map)) in offered.enumerated() where WebRTCCodec(encodingName: map.encodingName) == .h264 && map.clockRate == 90000 {
            let parameters = media.formatParameters[type] ?? [:]
            let mode = parameters["packetization-mode"] ?? "0"
            if let ours = sending {
                guard mode == "1", let theirs = H264ProfileLevelID(formatParameters: parameters), theirs.decodesProfile(of: ours) else { continue }
                guard theirs.levelOrder >= ours.levelOrder || parameters["level-asymmetry-allowed"] == "1" else { continue }
                ranked.append((theirs.profile == ours.profile ? 0 : 1, order, type, map))
            } else {
                guard mode == "1" || mode == "0" else { continue }
                ranked.append((mode == "1" ? 0 : 1, order, type, map))
            }
        }
        return ranked.sorted { ($0.rank, $0.order) < ($1.rank, $1.order) }.map { ($0.type, $0.map) }
    }

    /// H.265 payload types we can receive, in the offer's order: one RTP stream (RFC 7798 §7.1: tx-mode SRST), its NAL
    /// units in decoding order (no DONL field: sprop-max-don-diff 0), any profile.
    private static func h265Candidates(_ offered: [(UInt8, MediaDescription.RTPMap)], media: MediaDescription) -> [(UInt8, MediaDescription.RTPMap)] {
        offered.filter { type, map in
            let parameters = media.formatParameters[type] ?? [:]
            return WebRTCCodec(encodingName: map.encodingName) == .h265 && map.clockRate == 90000
                && (parameters["tx-mode"] ?? "SRST").uppercased() == "SRST" && (parameters["sprop-max-don-diff"] ?? "0") == "0"
        }
    }

    /// AV1, VP9 or VP8 payload types we can receive, in the offer's order: every profile, level and tier goes on as it
    /// is (the edge copies the frames; what decodes them is the outputs' reader).
    private static func offered(_ codec: WebRTCCodec, in offered: [(UInt8, MediaDescription.RTPMap)]) -> [(UInt8, MediaDescription.RTPMap)] {
        offered.filter { WebRTCCodec(encodingName: $0.1.encodingName) == codec && $0.1.clockRate == 90000 }
    }

    /// Why a section cannot be taken.
    struct Refusal: Error {
        let reason: String
    }
}
