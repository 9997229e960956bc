import JobDocument
import MediaEngine
import MediaJob

extension ReconnectSpec {
    /// The job's `reconnect` object as the job's retry policy.
    public var policy: ReconnectPolicy {
        ReconnectPolicy(attempts: attempts, initialDelay: initialDelaySeconds, maxDelay: maxDelaySeconds)
    }
}
