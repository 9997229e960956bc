import MediaFormats

/// One output format's writer. Runs on its output's own thread: `open`, then `write` per packet, then
/// `finish` (trailer written, target closed) or `abandon` (failure or cancel). Implementations own their MediaFormats state.
package protocol PacketSink: AnyObject {
    /// Which streams this sink takes; the others are never queued to it.
    var wantsVideo: Bool { get }
    var wantsAudio: Bool { get }
    var bytesWritten: Int64 { get }
    /// Video packets dropped because no parameter sets had been seen yet (a stream cut mid-GOP).
    var skippedBeforeConfiguration: Int { get }
    /// The target, published (renamed into place) by the codec job once every output has finished.
    var file: FileWriter { get }
    func open() throws
    func write(_ packet: MediaPacket) throws
    func finish() throws
    func abandon()
}

extension PacketSink {
    /// A format that needs no configuration before its first packet skips none.
    package var skippedBeforeConfiguration: Int { 0 }
}

/// Milliseconds for FLV, rounded half away from zero from microseconds; defined for every Int64 (no overflow).
@inline(__always)
package func milliseconds(_ microseconds: Int64) -> Int64 {
    let (quotient, remainder) = microseconds.quotientAndRemainder(dividingBy: 1000)
    if remainder >= 500 { return quotient + 1 }
    if remainder <= -500 { return quotient - 1 }
    return quotient
}
