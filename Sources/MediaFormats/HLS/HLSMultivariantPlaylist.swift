// RFC 8216bis §4.4.6 Multivariant Playlist tags: EXT-X-MEDIA (§4.4.6.1) for alternate renditions and
// EXT-X-STREAM-INF (§4.4.6.2) for each variant stream, printed by one `render`.

/// A Multivariant Playlist: the renditions and variant streams a client chooses from.
public struct HLSMultivariantPlaylist: Sendable, Equatable, CustomStringConvertible {
    /// One EXT-X-MEDIA tag.
    public struct Rendition: Sendable, Equatable {
        /// TYPE.
        public enum MediaType: String, Sendable, Equatable {
            case audio = "AUDIO", video = "VIDEO", subtitles = "SUBTITLES"
        }

        /// TYPE.
        public var type: MediaType
        /// GROUP-ID: the group a variant names in its AUDIO (VIDEO, SUBTITLES) attribute.
        public var groupID: String
        /// NAME: human-readable, unique within the group.
        public var name: String
        /// LANGUAGE (RFC 5646 tag).
        public var language: String?
        /// DEFAULT=YES: play this one unless the user chooses.
        public var isDefault: Bool
        /// AUTOSELECT=YES: the client may choose it from user preferences.
        public var autoselect: Bool
        /// CHANNELS for audio: the channel count, e.g. "2" or "6".
        public var channels: String?
        /// URI of its Media Playlist; nil when the variant's own stream carries it.
        public var uri: String?

        /// A rendition from its fields.
        public init(type: MediaType, groupID: String, name: String, language: String? = nil, isDefault: Bool = false,
                    autoselect: Bool = false, channels: String? = nil, uri: String? = nil) {
            self.type = type
            self.groupID = groupID
            self.name = name
            self.language = language
            self.isDefault = isDefault
            self.autoselect = autoselect
            self.channels = channels
            self.uri = uri
        }

        /// The attributes in the spec's order.
        public var attributes: HLSAttributeList {
            var list = HLSAttributeList()
            list.append("TYPE", .enumerated(type.rawValue))
            list.append("GROUP-ID", .quoted(groupID))
            list.append("NAME", .quoted(name))
            list.append("LANGUAGE", language.map { .quoted($0) })
            // DEFAULT and AUTOSELECT are printed either way: players differ in the default they assume.
            list.append("DEFAULT", .enumerated(isDefault ? "YES" : "NO"))
            list.append("AUTOSELECT", .enumerated(autoselect || isDefault ? "YES" : "NO"))
            list.append("CHANNELS", channels.map { .quoted($0) })
            list.append("URI", uri.map { .quoted($0) })
            return list
        }
    }

    /// One EXT-X-STREAM-INF tag and its URI line.
    public struct VariantStream: Sendable, Equatable {
        /// BANDWIDTH: peak bits per second of the whole variant (all its renditions).
        public var bandwidth: UInt64
        /// AVERAGE-BANDWIDTH: average bits per second.
        public var averageBandwidth: UInt64?
        /// CODECS: every format in the variant, as RFC 6381 names them (see `CodecString`).
        public var codecs: [String]
        /// RESOLUTION of the video.
        public var resolution: (width: Int, height: Int)?
        /// FRAME-RATE: the maximum frame rate, printed with three decimals.
        public var frameRate: Double?
        /// AUDIO: the GROUP-ID of the audio renditions to play with it.
        public var audioGroup: String?
        /// URI of the variant's Media Playlist.
        public var uri: String

        /// A variant from its fields.
        public init(bandwidth: UInt64, averageBandwidth: UInt64? = nil, codecs: [String],
                    resolution: (width: Int, height: Int)? = nil, frameRate: Double? = nil, audioGroup: String? = nil,
                    uri: String) {
            self.bandwidth = bandwidth
            self.averageBandwidth = averageBandwidth
            self.codecs = codecs
            self.resolution = resolution
            self.frameRate = frameRate
            self.audioGroup = audioGroup
            self.uri = uri
        }

        /// The attributes in the order FFmpeg's hlsenc and Apple's examples use.
        public var attributes: HLSAttributeList {
            var list = HLSAttributeList()
            list.append("BANDWIDTH", .integer(bandwidth))
            list.append("AVERAGE-BANDWIDTH", averageBandwidth.map { .integer($0) })
            list.append("RESOLUTION", resolution.map { .resolution(width: $0.width, height: $0.height) })
            list.append("FRAME-RATE", frameRate.map { .decimal($0, fractionDigits: HLSNumber.frameRateFractionDigits) })
            list.append("CODECS", codecs.isEmpty ? nil : .quoted(codecs.joined(separator: ",")))
            list.append("AUDIO", audioGroup.map { .quoted($0) })
            return list
        }

        public static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.attributes == rhs.attributes && lhs.uri == rhs.uri
        }
    }

    /// EXT-X-INDEPENDENT-SEGMENTS for every media playlist.
    public var independentSegments: Bool
    /// EXT-X-MEDIA tags.
    public var renditions: [Rendition]
    /// EXT-X-STREAM-INF tags, in the order clients should consider them.
    public var variants: [VariantStream]

    /// EXT-X-VERSION: nothing printed here needs more than the first version; 3 matches the media playlists'
    /// minimum. A writer gives the version of its media playlists (6 with EXT-X-MAP), so one client sees one version.
    public var version: Int

    /// A playlist from its parts.
    public init(version: Int = 3, independentSegments: Bool = true, renditions: [Rendition] = [], variants: [VariantStream]) {
        self.version = version
        self.independentSegments = independentSegments
        self.renditions = renditions
        self.variants = variants
    }

    /// The playlist as text, ending with a newline.
    public func render() -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:\(version)"]
        if independentSegments { lines.append("#EXT-X-INDEPENDENT-SEGMENTS") }
        for rendition in renditions { lines.append("#EXT-X-MEDIA:" + rendition.attributes.description) }
        for variant in variants {
            lines.append("#EXT-X-STREAM-INF:" + variant.attributes.description)
            lines.append(variant.uri)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    public var description: String { render() }

    /// Throws when a variant names an audio group no rendition has, or a string cannot be printed.
    public func validate() throws {
        let groups = Set(renditions.filter { $0.type == .audio }.map(\.groupID))
        for variant in variants {
            if let group = variant.audioGroup, !groups.contains(group) {
                throw Self.invalid("variant \(variant.uri) names audio group \(group), which no EXT-X-MEDIA defines")
            }
            guard !variant.uri.isEmpty, HLSAttributeList.isQuotable(variant.uri), variant.uri.first != "#",
                  variant.codecs.allSatisfy({ HLSAttributeList.isQuotable($0) && !$0.contains(",") }) else {
                throw Self.invalid("variant \(variant.uri.debugDescription) cannot be printed")
            }
        }
        for rendition in renditions {
            let texts = [rendition.groupID, rendition.name, rendition.language, rendition.channels, rendition.uri]
            guard texts.allSatisfy({ $0.map(HLSAttributeList.isQuotable) ?? true }) else {
                throw Self.invalid("rendition \(rendition.name.debugDescription) cannot be printed")
            }
        }
    }

    private static func invalid(_ reason: String) -> MediaFormatError {
        .invalid(structure: "HLS multivariant playlist", reason: reason)
    }
}
