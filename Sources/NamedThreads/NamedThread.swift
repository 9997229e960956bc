import CThreadName
import Foundation

/// Starts a thread that names itself as `ps`, `top` and `/proc/PID/task/TID/comm` show it. Every thread Sluice starts
/// of its own starts here (SwiftNIO's and libsrt's threads name themselves). Foundation's `Thread.name` is not enough
/// on Linux: it reaches the kernel only when it wins a race with the thread's start.
/// - Parameters:
///   - name: at most 15 bytes (Linux's limit; `sluice-` and a word).
///   - body: what the thread runs; the thread ends with it.
public func startNamedThread(_ name: String, _ body: @escaping @Sendable () -> Void) {
    let thread = Thread {
        _ = sluice_name_this_thread(name)
        body()
    }
    thread.name = name
    thread.start()
}
