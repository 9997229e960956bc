import CFFmpeg
import MediaJob

/// How FFmpeg sees an interrupter: an `AVIOInterruptCB` installed on every context before it opens.
extension Interrupter {
    /// The C callback: `opaque` is an unretained pointer to the interrupter, kept alive by the context's owner.
    var callback: AVIOInterruptCB {
        AVIOInterruptCB(
            callback: { opaque in
                guard let opaque else { return 0 }
                return Unmanaged<Interrupter>.fromOpaque(opaque).takeUnretainedValue().shouldInterrupt ? 1 : 0
            },
            opaque: Unmanaged.passUnretained(self).toOpaque()
        )
    }
}
