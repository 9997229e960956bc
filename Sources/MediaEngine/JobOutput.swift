/// One output as the codec job's input thread drives it: a file on its own thread (`FileOutput`) or an RTMP
/// publish on the relay engine (`RelayPublishOutput`).
import MediaJob
import MediaSinks
protocol JobOutput: AnyObject {
    var index: Int { get }
    var name: String { get }
    var wantsVideo: Bool { get }
    var wantsAudio: Bool { get }
    /// True for RTMP publishes: they give up without failing the job, and cannot be taken back.
    var isNetwork: Bool { get }
    var progress: OutputProgress { get }
    var error: (any Error)? { get }
    /// Video packets skipped before the first SPS/PPS (read after `close`).
    var skippedBeforeConfiguration: Int { get }
    func start()
    /// Hands a packet over; false only when a file output has failed (the job must stop).
    func submit(_ packet: MediaPacket) -> Bool
    /// Tells the output its stream has ended (`commit`: trailers written) without waiting for it, so that a job's
    /// outputs finish side by side; `close` then waits.
    func end(commit: Bool)
    /// Ends the stream (`commit`: trailers written) and waits; returns a file output's error.
    func close(commit: Bool) -> (any Error)?
    /// Moves a closed file onto its real name (its bytes synced) and returns it, so that the codec job syncs the
    /// folders of all its outputs once each (`OutputCommit.publish`); nil for a network output.
    func rename() throws -> OutputFile?
    /// Removes a file output's temporary file.
    func discard()
}

extension JobOutput {
    /// An output that has nothing to do before `close` (an RTMP publish: its end is sent in `close`).
    func end(commit: Bool) {}

    /// A network output that ran out of attempts: it takes no more packets, and the job goes on.
    var hasGivenUp: Bool { isNetwork && progress.failed }
}
