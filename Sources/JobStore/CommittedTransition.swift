// docs/ARCHITECTURE.md §6: a state change as one transaction committed it, so its event is published with the id it
// was stored with (never found again by reading the newest row back).

/// The job after a transition and the `job_events` row that recorded it.
///
/// Reads of the job's fields (`transition.state`, `transition.attempts`) reach the job directly.
@dynamicMemberLookup
public struct CommittedTransition: Equatable, Sendable {
    /// The job as the transaction left it.
    public var job: JobRecord
    /// The event written in the same transaction; its `eventID` names it on the events exchange.
    public var event: EventRecord

    /// The job's fields, read through the transition.
    public subscript<Value>(dynamicMember keyPath: KeyPath<JobRecord, Value>) -> Value {
        job[keyPath: keyPath]
    }
}
