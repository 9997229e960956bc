import Foundation
import MediaJob
import NamedThreads

/// The codec engine: every job that is not a live copy (files, encodes, ladders, audio-only outputs) as a `CodecJob`
/// on a thread of its own, which becomes the job's input thread. Every RTMP byte of such a job (a live input to
/// encode, RTMP outputs of a file job) goes through `transport`, the relay engine's.
public final class CodecEngine: JobEngine {
    /// The relay engine's connections; nil where none runs (a job with an RTMP input or output then fails, naming why).
    public let transport: (any LiveTransport)?

    public init(transport: (any LiveTransport)?) {
        self.transport = transport
    }

    /// The codec engine runs every job the job document allows.
    public func runs(_ options: MediaJobOptions) -> Bool { true }

    public func start(_ options: MediaJobOptions, interrupter: Interrupter, callbacks: JobCallbacks) {
        var options = options
        options.transport = transport
        options.segmentReports = callbacks.segment
        let job = CodecJob(options: options, interrupter: interrupter)
        job.encoderSelected = callbacks.encoderSelected
        job.discardsOutputsOnCancel = callbacks.discardsOutputsOnCancel
        startNamedThread("sluice-codec") {
            let result: Result<MediaJobResult, any Error>
            do {
                result = .success(try job.run(progress: callbacks.progress))
            } catch {
                result = .failure(error)
            }
            callbacks.completion(result)
        }
    }
}
