import JobDocument
import MediaEngine
import MediaPipeline

extension ReconnectSpec {
    /// The job's `reconnect` object as the pipeline's retry policy.
    public var policy: ReconnectPolicy {
        ReconnectPolicy(attempts: attempts, initialDelay: initialDelaySeconds, maxDelay: maxDelaySeconds)
    }
}
