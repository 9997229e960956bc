import CSRT

/// libsrt, which the executable does not link: it is opened on the first call into it (CSRT's srt_loader.c), so a
/// worker that carries no SRT never maps it.
public enum SRTLibrary {
    /// Loads libsrt-gnutls, once per process.
    /// - Returns: nil once it is loaded, otherwise why it could not be (the library, and dlerror's text).
    public static func load() -> String? {
        sluice_srt_load().map { String(cString: $0) }
    }
}
