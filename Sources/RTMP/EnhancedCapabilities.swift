// Enhanced RTMP v2 (veovera/enhanced-rtmp, docs/enhanced/enhanced-rtmp-v2.md), "Enhancing NetConnection connect
// Command": the codec and feature properties a client puts in its connect command object and a server in the
// properties of its `_result` (fourCcList from v1; videoFourCcInfoMap, audioFourCcInfoMap and capsEx from v2).
import MediaFormats

/// What one side of a NetConnection says it can take: the FourCCs, per-codec flags and extended capabilities.
///
/// An absent property is `nil`, not empty: a peer that announces nothing (nginx-rtmp, FFmpeg 8's listen server,
/// most services) says nothing either way, which is not the same as announcing a list without a codec.
public struct EnhancedCapabilities: Sendable, Equatable {
    /// FourCcInfoMask: the bits of a videoFourCcInfoMap / audioFourCcInfoMap value.
    public enum InfoMask {
        /// The peer can decode the codec.
        public static let canDecode: UInt32 = 0x01
        /// The peer can encode (send) the codec.
        public static let canEncode: UInt32 = 0x02
        /// The peer can forward the codec without decoding it (a relay, a server).
        public static let canForward: UInt32 = 0x04
    }

    /// CapsExMask: the bits of capsEx.
    public enum CapsEx {
        /// NetConnection.Connect.ReconnectRequest is understood.
        public static let reconnect: UInt32 = 0x01
        /// Multitrack audio and video messages.
        public static let multitrack: UInt32 = 0x02
        /// ModEx signalling is parsed.
        public static let modEx: UInt32 = 0x04
        /// The ModEx TimestampOffsetNano is honoured.
        public static let timestampNanoOffset: UInt32 = 0x08
    }

    /// The key that stands for every codec in fourCcList and in the info maps.
    public static let wildcard = "*"

    /// fourCcList (v1): the FourCCs the peer supports; nil when absent.
    public var fourCCList: [String]?
    /// videoFourCcInfoMap (v2): FourCC (or "*") → FourCcInfoMask bits; nil when absent.
    public var videoInfo: [(fourCC: String, flags: UInt32)]?
    /// audioFourCcInfoMap (v2): FourCC (or "*") → FourCcInfoMask bits; nil when absent.
    public var audioInfo: [(fourCC: String, flags: UInt32)]?
    /// capsEx (v2): CapsExMask bits; nil when absent.
    public var capsEx: UInt32?

    /// Capabilities from their parts.
    public init(fourCCList: [String]? = nil, videoInfo: [(fourCC: String, flags: UInt32)]? = nil,
                audioInfo: [(fourCC: String, flags: UInt32)]? = nil, capsEx: UInt32? = nil) {
        self.fourCCList = fourCCList
        self.videoInfo = videoInfo
        self.audioInfo = audioInfo
        self.capsEx = capsEx
    }

    /// Reads the properties from a connect command object or a `_result`'s properties (an object or ECMA array).
    /// Entries of the wrong type are skipped: a peer's odd property never fails the connection.
    public init(properties value: AMF0Value) {
        if case let .strictArray(items)? = value["fourCcList"] {
            fourCCList = items.compactMap(\.stringValue)
        }
        videoInfo = Self.infoMap(value["videoFourCcInfoMap"])
        audioInfo = Self.infoMap(value["audioFourCcInfoMap"])
        capsEx = value["capsEx"]?.numberValue.flatMap(Self.flags)
    }

    private static func infoMap(_ value: AMF0Value?) -> [(fourCC: String, flags: UInt32)]? {
        guard let properties = value?.properties else { return nil }
        return properties.compactMap { property in
            guard let flags = property.value.numberValue.flatMap(flags) else { return nil }
            return (property.key, flags)
        }
    }

    /// A flags number as sent (a double): a whole number that fits 32 bits, else nil.
    private static func flags(_ number: Double) -> UInt32? {
        guard number.isFinite, number >= 0, number <= Double(UInt32.max), number == number.rounded() else { return nil }
        return UInt32(number)
    }

    /// True when the peer announced any of the codec properties.
    public var announcesCodecs: Bool { fourCCList != nil || videoInfo != nil || audioInfo != nil }

    /// The properties to add to a connect command object or a `_result`, in the specification's order.
    public var properties: [AMF0Property] {
        var out: [AMF0Property] = []
        if let fourCCList { out.append(AMF0Property("fourCcList", .strictArray(fourCCList.map { .string($0) }))) }
        if let videoInfo {
            out.append(AMF0Property("videoFourCcInfoMap", .object(videoInfo.map { AMF0Property($0.fourCC, .number(Double($0.flags))) })))
        }
        if let audioInfo {
            out.append(AMF0Property("audioFourCcInfoMap", .object(audioInfo.map { AMF0Property($0.fourCC, .number(Double($0.flags))) })))
        }
        if let capsEx { out.append(AMF0Property("capsEx", .number(Double(capsEx)))) }
        return out
    }

    /// What the peer said about a codec it would receive from us.
    public enum Acceptance: Sendable, Equatable {
        /// Listed (by name or "*") with a flag that lets it take the codec (decode or forward), or in fourCcList.
        case accepted
        /// The peer announced its codecs of this kind and this one is not among them.
        case refused
        /// The peer announced nothing about codecs of this kind.
        case unannounced
    }

    /// Whether the peer takes `fourCC` video. The info map, when present, decides; else fourCcList.
    public func accepts(video fourCC: FLVVideoFourCC) -> Acceptance {
        Self.acceptance(fourCC.description, info: videoInfo, list: fourCCList)
    }

    /// Whether the peer takes `fourCC` audio. The info map, when present, decides; else fourCcList when it names any
    /// audio FourCC (a v1 list names video codecs only, and says nothing of audio).
    public func accepts(audio fourCC: FLVAudioFourCC) -> Acceptance {
        let audioNames = Set(FLVAudioFourCC.allCases.map(\.description))
        let list = fourCCList.flatMap { list in list.contains { audioNames.contains($0) } ? list : nil }
        return Self.acceptance(fourCC.description, info: audioInfo, list: list)
    }

    private static func acceptance(_ name: String, info: [(fourCC: String, flags: UInt32)]?, list: [String]?) -> Acceptance {
        if let info {
            let takes = InfoMask.canDecode | InfoMask.canForward
            let listed = info.contains { ($0.fourCC == name || $0.fourCC == wildcard) && $0.flags & takes != 0 }
            return listed ? .accepted : .refused
        }
        if let list { return list.contains(name) || list.contains(wildcard) ? .accepted : .refused }
        return .unannounced
    }

    public static func == (lhs: EnhancedCapabilities, rhs: EnhancedCapabilities) -> Bool {
        lhs.fourCCList == rhs.fourCCList && lhs.capsEx == rhs.capsEx
            && equal(lhs.videoInfo, rhs.videoInfo) && equal(lhs.audioInfo, rhs.audioInfo)
    }

    private static func equal(_ lhs: [(fourCC: String, flags: UInt32)]?, _ rhs: [(fourCC: String, flags: UInt32)]?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): return true
        case let (l?, r?): return l.count == r.count && zip(l, r).allSatisfy { $0.fourCC == $1.fourCC && $0.flags == $1.flags }
        default: return false
        }
    }
}

extension EnhancedCapabilities {
    /// The video codecs Sluice relays through Enhanced RTMP (copy jobs forward any of them; the tests hold each).
    public static let relayedVideo: [FLVVideoFourCC] = [.avc1, .hvc1, .av01, .vp09, .vp08]
    /// The audio codecs Sluice relays through Enhanced RTMP.
    public static let relayedAudio: [FLVAudioFourCC] = [.mp4a, .opus, .mp3, .ac3, .ec3, .flac]

    /// What Sluice answers a publisher's connect with, and announces when it connects to a server: every relayed codec
    /// with CanForward (a relay passes codecs through; whether a job can decode one is the job's, told at publish time
    /// by failing it with the codec's name), multitrack, ModEx and the nanosecond offset. `canEncode` adds CanEncode
    /// (a publishing client says what it may send).
    public static func relay(canEncode: Bool = false) -> EnhancedCapabilities {
        let flags = InfoMask.canForward | (canEncode ? InfoMask.canEncode : 0)
        return EnhancedCapabilities(
            fourCCList: relayedVideo.map(\.description) + relayedAudio.map(\.description),
            videoInfo: relayedVideo.map { ($0.description, flags) },
            audioInfo: relayedAudio.map { ($0.description, flags) },
            capsEx: CapsEx.multitrack | CapsEx.modEx | CapsEx.timestampNanoOffset)
    }
}
