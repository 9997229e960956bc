import MediaFormats
import MediaJob
import NIOCore
import RTMP

/// A file output of a live job as its session drives it, on the session's loop: an FLV archive (`FileOutputLink`,
/// the tags written as they came) or any other format through its sink (`SinkOutputLink`). Both take what the core
/// archives, write on the engine's file pool, and are committed together by the session (`RelaySession+End.swift`):
/// every one finished, then every one moved onto its name and each folder synced once, or every one removed.
protocol LiveFileOutput: AnyObject {
    var index: Int { get }
    var name: String { get }
    var progress: OutputProgress { get set }
    /// The first error (opening, writing, a stream the format cannot take): it fails the job.
    var failure: (any Error)? { get }
    /// Whether the output carries video (an `.aac` output does not, nor one whose job drops it).
    var takesVideo: Bool { get }
    /// Whether the output pauses through a slate instead of taking it: a format that holds one configuration per
    /// track (MP4, HLS) cannot take the slate's, so it keeps the input's and resumes with it.
    var skipsSlate: Bool { get }
    /// Takes one message of what the core archives for this output, with its head as the core read it.
    func archive(_ message: Message, _ head: FLVTagHead)
    /// Hands what was taken to the pool (once per source read burst).
    func flush()
    /// Writes what is left and finishes the file (its trailer, its bytes synced), not yet under its name; without
    /// `commit`, removes what it wrote. The future fails with the output's first error.
    func finish(commit: Bool) -> EventLoopFuture<Void>
    /// On the pool, once every output finished: what moves the finished file onto its name (nil: nothing to move).
    var commit: any LiveFileCommit { get }
}

/// The pool's part of committing a live file output: the rename, or the removal of everything it wrote.
protocol LiveFileCommit: Sendable {
    /// Moves the finished file onto its name (its folder is synced with the job's other outputs').
    func rename() throws -> OutputFile?
    /// Removes everything the output wrote (the job failed after the output finished).
    func discard()
}
