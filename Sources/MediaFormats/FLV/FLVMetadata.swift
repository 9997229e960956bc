// Adobe Flash Video File Format Specification v10.1, §E.5 onMetaData.

/// The onMetaData properties Sluice writes; only the ones set are written, in FFmpeg's flvenc order.
public struct FLVMetadata: Sendable, Equatable {
    /// Total duration in seconds (patched in place at the end of a seekable file).
    public var duration: Double?
    /// Video width in pixels.
    public var width: Double?
    /// Video height in pixels.
    public var height: Double?
    /// Video bit rate in kb/s.
    public var videodatarate: Double?
    /// Frames per second.
    public var framerate: Double?
    /// Video CodecID (7 for AVC).
    public var videocodecid: Double?
    /// Audio bit rate in kb/s.
    public var audiodatarate: Double?
    /// Audio sampling rate in Hz.
    public var audiosamplerate: Double?
    /// Bits per audio sample.
    public var audiosamplesize: Double?
    /// True for stereo audio.
    public var stereo: Bool?
    /// Audio SoundFormat (10 for AAC).
    public var audiocodecid: Double?
    /// The writing application.
    public var encoder: String?
    /// Total file size in bytes (patched in place at the end of a seekable file).
    public var filesize: Double?

    /// Metadata with the given fields set.
    public init(
        duration: Double? = nil, width: Double? = nil, height: Double? = nil, videodatarate: Double? = nil,
        framerate: Double? = nil, videocodecid: Double? = nil, audiodatarate: Double? = nil,
        audiosamplerate: Double? = nil, audiosamplesize: Double? = nil, stereo: Bool? = nil,
        audiocodecid: Double? = nil, encoder: String? = nil, filesize: Double? = nil
    ) {
        self.duration = duration
        self.width = width
        self.height = height
        self.videodatarate = videodatarate
        self.framerate = framerate
        self.videocodecid = videocodecid
        self.audiodatarate = audiodatarate
        self.audiosamplerate = audiosamplerate
        self.audiosamplesize = audiosamplesize
        self.stereo = stereo
        self.audiocodecid = audiocodecid
        self.encoder = encoder
        self.filesize = filesize
    }

    /// The onMetaData ECMA array: set fields only, in a stable order (FFmpeg's, so files diff cleanly).
    public var amf0Value: AMF0Value {
        var properties: [AMF0Property] = []
        func add(_ key: String, _ number: Double?) {
            if let number { properties.append(AMF0Property(key, .number(number))) }
        }
        add("duration", duration)
        add("width", width)
        add("height", height)
        add("videodatarate", videodatarate)
        add("framerate", framerate)
        add("videocodecid", videocodecid)
        add("audiodatarate", audiodatarate)
        add("audiosamplerate", audiosamplerate)
        add("audiosamplesize", audiosamplesize)
        if let stereo { properties.append(AMF0Property("stereo", .boolean(stereo))) }
        add("audiocodecid", audiocodecid)
        if let encoder { properties.append(AMF0Property("encoder", .string(encoder))) }
        add("filesize", filesize)
        return .ecmaArray(properties)
    }
}
