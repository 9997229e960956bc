// docs/ARCHITECTURE.md §7 (orphans): whether anyone holds some jobs' leases, asked passively (a stale temporary file
// whose job's lease nobody holds has no writer that will come back for it).
import CRabbitMQ

extension BrokerConnection {
    /// The ids among `jobIDs` whose lease somebody holds now (its queue, under any class's name, has a consumer).
    /// Asked on a short connection of its own with passive declares, so the owner thread and the leases it holds are
    /// not involved and nothing is created. Blocking: call it from a thread of its own.
    /// - Parameter jobIDs: the jobs to ask about.
    /// - Returns: the held ones; a lease queue that does not exist is held by nobody.
    public func heldLeases(of jobIDs: [String]) throws(AMQPError) -> Set<String> {
        guard !jobIDs.isEmpty else { return [] }
        let connection = try AMQPConnection(configuration: configuration)
        let channel = AMQPConnection.firstLeaseChannel
        try connection.openLeaseChannel(channel)
        var held: Set<String> = []
        for jobID in jobIDs {
            for jobClass in JobClass.allCases {
                do throws(AMQPError) {
                    if try connection.leaseConsumers(JobLease.queueName(jobID: jobID, jobClass: jobClass), on: channel) > 0 {
                        held.insert(jobID)
                    }
                } catch .channelClosed {
                    // 404: no such queue. The broker closed the channel (and it was answered): open it again.
                    try connection.openLeaseChannel(channel)
                }
            }
        }
        try connection.closeLeaseChannel(channel)
        return held
    }

    /// Whether the job's lease queue (under any class's name) still holds a claim or has a holder: then that claim
    /// comes back through `sluice.jobs` (or is held by a worker that runs the job), and the job will be attempted and
    /// settled from it. Asked on a short connection of its own with passive declares, like `heldLeases(of:)`.
    /// Blocking: call it from a thread of its own.
    /// - Parameter jobID: the job to ask about.
    /// - Returns: false when no lease queue of the job exists, or none holds a claim or a consumer.
    public func claimWaits(jobID: String) throws(AMQPError) -> Bool {
        let connection = try AMQPConnection(configuration: configuration)
        let channel = AMQPConnection.firstLeaseChannel
        try connection.openLeaseChannel(channel)
        var waits = false
        for jobClass in JobClass.allCases where !waits {
            do throws(AMQPError) {
                let counts = try connection.leaseQueueCounts(JobLease.queueName(jobID: jobID, jobClass: jobClass), on: channel)
                waits = counts.consumers > 0 || counts.messages > 0
            } catch .channelClosed {
                // 404: no such queue. The broker closed the channel (and it was answered): open it again.
                try connection.openLeaseChannel(channel)
            }
        }
        try connection.closeLeaseChannel(channel)
        return waits
    }
}
