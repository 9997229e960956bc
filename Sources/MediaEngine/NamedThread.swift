import CFFmpeg
import Foundation

/// Starts a thread that names itself as `ps`, `top` and `/proc/PID/task/TID/comm` show it: Foundation's `Thread.name`
/// on Linux reaches the kernel only when it wins a race with the thread's start. Linux takes at most 15 bytes.
func startNamedThread(_ name: String, _ body: @escaping @Sendable () -> Void) {
    let thread = Thread {
        _ = sluice_name_codec_thread(name)
        body()
    }
    thread.name = name
    thread.start()
}
