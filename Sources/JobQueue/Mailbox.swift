import Foundation
import NIOConcurrencyHelpers
#if canImport(Glibc)
import Glibc
#endif

/// Work handed from job threads to the connection's owner thread.
enum MailboxCommand: Sendable {
    /// basic.ack of a delivery (dropped if the delivery is from an earlier connection).
    case ack(Delivery)
    /// basic.reject of a delivery, requeued or dead-lettered through the queue's DLX.
    case reject(Delivery, requeue: Bool)
    /// A persistent publish; the waiter (if any) learns the broker's confirm.
    case publish(OutgoingMessage, PublishWaiter?)
    /// basic.cancel of the jobs consumer (graceful shutdown).
    case stopConsuming
    /// basic.cancel of a jobs consumer (`sluice.jobs` for nil, else the class queue's) while every slot is busy
    /// (false consumes again); the stream stays open.
    case pauseConsuming(Bool, JobClass?)
    /// Take a job's lease (see `JobLease`); the waiter learns the outcome once the first claim is back.
    case acquireLease(LeaseRequest, LeaseWaiter)
    /// Give a job's lease up: delete its queue (claims included); the waiter, if any, is resumed after.
    case releaseLease(jobID: String, LeaseReleaseWaiter?)
    /// Leave a job's lease to lapse (its next step was not confirmed): nothing is deleted, its claim expires into
    /// `sluice.jobs`; the waiter, if any, is resumed after.
    case abandonLease(jobID: String, LeaseReleaseWaiter?)
    /// The job's document changed while it runs (an output edit): later claims carry this body.
    case replaceLeaseBody(jobID: String, [UInt8])
}

/// A continuation resumed at most once, whichever thread gets to it first; a later resume does nothing.
final class ResumedOnce<Value: Sendable>: Sendable {
    private let continuation: NIOLockedValueBox<CheckedContinuation<Value, Never>?>

    init(_ continuation: CheckedContinuation<Value, Never>) {
        self.continuation = NIOLockedValueBox(continuation)
    }

    func resume(_ value: Value) {
        continuation.withLockedValue { taken in
            defer { taken = nil }
            return taken
        }?.resume(returning: value)
    }
}

extension ResumedOnce where Value == Void {
    func resume() { resume(()) }
}

/// One caller awaiting a lease, plus what to call if the lease is lost later. Resumed exactly once.
final class LeaseWaiter: Sendable {
    private let waiter: ResumedOnce<LeaseOutcome>
    let onLost: @Sendable (String) -> Void

    init(_ continuation: CheckedContinuation<LeaseOutcome, Never>, onLost: @escaping @Sendable (String) -> Void) {
        waiter = ResumedOnce(continuation)
        self.onLost = onLost
    }

    func resume(_ outcome: LeaseOutcome) { waiter.resume(outcome) }
}

/// One caller awaiting the release of a lease. Resumed exactly once.
typealias LeaseReleaseWaiter = ResumedOnce<Void>

/// One caller awaiting a publisher confirm. Resumed exactly once, on the owner thread.
final class PublishWaiter: Sendable {
    private let waiter: ResumedOnce<Result<Void, AMQPError>>
    /// Where the message went, for the error if the broker refuses it.
    let exchange: String
    let routingKey: String

    init(_ continuation: CheckedContinuation<Result<Void, AMQPError>, Never>, exchange: String, routingKey: String) {
        waiter = ResumedOnce(continuation)
        self.exchange = exchange
        self.routingKey = routingKey
    }

    func resume(_ result: Result<Void, AMQPError>) { waiter.resume(result) }
}

/// A locked queue of commands plus a self-pipe, so that posting wakes the owner thread out of poll(2) at once
/// (acks then leave within microseconds instead of after the next poll timeout).
final class Mailbox: Sendable {
    private let commands = NIOLockedValueBox<[MailboxCommand]>([])
    /// Read end, polled by the owner thread; -1 if the pipe could not be created (then polling simply times out).
    let wakeReadDescriptor: Int32
    private let wakeWriteDescriptor: Int32

    init() {
        var descriptors: [Int32] = [-1, -1]
        if pipe(&descriptors) == 0 {
            for descriptor in descriptors {
                _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
                _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            }
        }
        wakeReadDescriptor = descriptors[0]
        wakeWriteDescriptor = descriptors[1]
    }

    deinit {
        if wakeReadDescriptor >= 0 { close(wakeReadDescriptor) }
        if wakeWriteDescriptor >= 0 { close(wakeWriteDescriptor) }
    }

    /// Queues a command and wakes the owner thread.
    func post(_ command: MailboxCommand) {
        commands.withLockedValue { $0.append(command) }
        wake()
    }

    /// Puts commands back at the front (publishes that must wait for the next connection).
    func putBack(_ returned: [MailboxCommand]) {
        guard !returned.isEmpty else { return }
        commands.withLockedValue { $0.insert(contentsOf: returned, at: 0) }
    }

    /// Takes every queued command.
    func drain() -> [MailboxCommand] {
        commands.withLockedValue { commands in
            defer { commands.removeAll() }
            return commands
        }
    }

    /// Wakes the owner thread (a full pipe already means "wake up", so EAGAIN is fine).
    func wake() {
        guard wakeWriteDescriptor >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(wakeWriteDescriptor, &byte, 1)
    }

    /// Empties the pipe after a wake-up.
    func clearWake() {
        guard wakeReadDescriptor >= 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(wakeReadDescriptor, &buffer, buffer.count) > 0 {}
    }

    /// Waits until the socket (if any) is readable, a command is posted, or `timeout` passes.
    func wait(socket: Int32?, timeout: Duration) {
        var descriptors = [pollfd(fd: wakeReadDescriptor, events: Int16(POLLIN), revents: 0)]
        if let socket, socket >= 0 {
            descriptors.append(pollfd(fd: socket, events: Int16(POLLIN), revents: 0))
        }
        let (seconds, attoseconds) = timeout.components
        let milliseconds = Int32(clamping: max(0, seconds * 1000 + attoseconds / 1_000_000_000_000_000))
        _ = poll(&descriptors, nfds_t(descriptors.count), milliseconds)
        clearWake()
    }
}
