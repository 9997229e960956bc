// Outputs on the fly (docs/ARCHITECTURE.md §8): the worker's side of an output edit on the broker: the answer to the
// requester, and the edited job document that the job's claims carry from now on (a take-over runs the edited job).
import Foundation

extension BrokerConnection {
    /// Answers an output edit on the requester's queue (default exchange, not persistent in effect: the requester
    /// waits for it now or never). Not confirmed: a lost answer is the requester's timeout.
    /// - Parameters:
    ///   - queue: the request's `reply_to`.
    ///   - reply: the answer (redacted).
    public func publishReply(to queue: String, _ reply: OutputEditReply) {
        mailbox.post(.publish(OutgoingMessage(exchange: "", routingKey: queue, body: reply.json), nil))
    }

    /// Makes every later claim of the job's lease carry `body` (the edited job document), and renews the claim at
    /// once, so a worker that takes the job over after this returns runs the edited job.
    /// - Parameters:
    ///   - jobID: the job whose lease this worker holds.
    ///   - body: the job document as it is now.
    public func replaceLeaseBody(jobID: String, body: [UInt8]) {
        mailbox.post(.replaceLeaseBody(jobID: jobID, body))
    }

    /// Owner thread: the new body for the held lease; its claim is republished at the next turn of the serve loop.
    func replaceHeldLeaseBody(jobID: String, body: [UInt8]) {
        leaseBook.replaceBody(jobID: jobID, body: body)
    }
}
