import CFFmpeg
import MediaJob

/// libav, which the executable does not link: it is opened on the first call into it (CFFmpeg's libav_loader.c), so
/// a worker that only relays never maps it. The codec engine's entry points load it first, so that a machine without
/// it fails the job with this reason rather than with what the first call happened to return.
public enum CodecLibraries {
    /// Loads libavutil, libswresample, libswscale, libavcodec and libavformat, once per process.
    /// - Returns: nil once they are loaded, otherwise why they could not be (the library, and dlerror's text).
    public static func load() -> String? {
        sluice_libav_load().map { String(cString: $0) }
    }

    /// `load`, throwing its reason.
    static func require() throws(MediaJobError) {
        if let reason = load() { throw .codecLibraries(reason: reason) }
    }
}
