// docs/ARCHITECTURE.md §2 (step 3) and §5: the worker's side of `SlotBook`: it asks the book, then starts a job,
// returns a delivery to its queue, or pauses and resumes a class's consumer.
import Foundation
import JobQueue
import JobStore
import MediaEngine
import JobDocument

extension Worker {
    /// Asks the book whether the job has room: `taking` takes it (and records the job as active), otherwise only
    /// asks. A refusal while `taking` forgets the job's claim here; `deferred` then returns the delivery.
    func admit(_ spec: JobSpec, jobClass: JobClass, taking: Bool, starting job: ActiveJob? = nil) -> SlotBook.Admission {
        lock.withLock {
            let answer = book.admission(jobClass, cost: spec.encodeCost)
            guard taking, let job else { return answer }
            switch answer {
            case .start:
                _ = book.admit(jobClass, cost: spec.encodeCost)
                active[spec.id] = job
                slotsChanged(jobClass)
            case .wait:
                triage.finished(id: spec.id)
            }
            return answer
        }
    }

    /// A delivery with no room here goes back to its queue, for another worker or for later. A class that still has
    /// room, but not enough for this job, stops taking deliveries until a job of it ends or `admissionRelook` passed.
    /// `recorded`: the job was recorded here already (it lost its room to a shutdown meanwhile).
    func deferred(_ spec: JobSpec, _ delivery: Delivery, jobClass: JobClass, reason: String, recorded: Bool = false) {
        // The pause this delivery began (nil: the class is full, draining, or already waiting for room).
        let pause: Int? = lock.withLock {
            let before = book.waiting[jobClass]
            if case .wait = book.admission(jobClass, cost: spec.encodeCost) { _ = book.admit(jobClass, cost: spec.encodeCost) }
            slotsChanged(jobClass)
            let after = book.waiting[jobClass]
            return after != before ? after : nil
        }
        if jobClass == .encode {
            log("left in \(jobClass.queueName) for another worker: \(reason)", job: spec.id)
            metrics?.encodeDeferred()
        } else if recorded {
            log("returned to \(jobClass.queueName): \(reason)", job: spec.id)
        }
        broker.requeue(delivery)
        guard let pause else { return }
        Task { [self, relook = configuration.admissionRelook] in
            try? await Task.sleep(for: relook)
            lock.withLock {
                book.relook(jobClass, pause: pause)
                slotsChanged(jobClass)
            }
        }
    }

    /// Frees the job's room and takes deliveries of its class again, unless the worker is draining.
    func finished(_ job: ActiveJob) {
        runner.editedURLs.forget(jobID: job.spec.id)
        lock.withLock {
            triage.finished(id: job.spec.id)
            if active.removeValue(forKey: job.spec.id) != nil { book.release(job.jobClass, cost: job.spec.encodeCost) }
            slotsChanged(job.jobClass)
        }
        // Attached under `lock` while the job was active, so none can be added now: the retry runs as any delivery.
        for delivery in job.takeNextAttempts() {
            log("its next attempt arrived while this one ended; handling it now", job: job.spec.id)
            Task { await handle(delivery) }
        }
        wakeDrain()
    }

    /// Pauses a class's consumer while it has no room (full, or waiting for room after a job that did not fit),
    /// resumes it otherwise (not while draining), and reports the slots. Called with `lock` held, so that pauses and
    /// resumes reach the broker in the order the room filled and freed (posting is quick and never blocks).
    func slotsChanged(_ jobClass: JobClass) {
        let capacity = book.capacity(jobClass)
        if capacity > 0, !shutdownRequested { broker.pauseConsuming(book.paused(jobClass), jobClass: jobClass) }
        metrics?.slots(jobClass, capacity: capacity, busy: book.used(jobClass))
    }
}
