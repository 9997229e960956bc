import Foundation
import JobQueue
import Testing
@testable import Sluice

/// Admission by cost. The worker's book of slots and encode units, without a broker.
@Suite("SlotBook")
struct SlotBookTests {
    static func book(live: Int = 100, batch: Int = 1, encode: Int = 2) -> SlotBook {
        SlotBook(capacity: [.live: live, .batch: batch, .encode: encode])
    }

    @Test("encode jobs take their cost in units until the budget is spent; the one that does not fit waits and pauses the consumer")
    func encodeBudget() {
        var book = Self.book(encode: 3)
        #expect(book.admit(.encode, cost: 1) == .start(units: 1))
        #expect(book.admit(.encode, cost: 1) == .start(units: 1))
        #expect(book.used(.encode) == 2 && !book.paused(.encode))
        // One unit left, a 1080p30 job costs 3: it waits, and the consumer stops although a unit is free.
        #expect(book.admit(.encode, cost: 3) == .wait(reason: "costs 3 encode units and 1 of 3 are free"))
        #expect(book.used(.encode) == 2 && book.paused(.encode) && book.waiting[.encode] != nil)
        // While it waits, nothing else of the class starts here (a delivery in flight goes back too).
        #expect(book.admit(.encode, cost: 1) == .wait(reason: "waiting for encode room to free up"))
        // The other classes are not touched.
        #expect(book.admit(.live, cost: 0) == .start(units: 1))
        #expect(!book.paused(.live) && !book.paused(.batch))
        // A job of the class ends: its unit frees up, and the consumer looks at the queue again.
        book.release(.encode, cost: 1)
        #expect(book.used(.encode) == 1 && !book.paused(.encode) && book.waiting[.encode] == nil)
        #expect(book.admit(.encode, cost: 2) == .start(units: 2))
        #expect(book.used(.encode) == 3 && book.paused(.encode), "full: paused without waiting")
        #expect(book.waiting[.encode] == nil)
    }

    @Test("asking does not take: admission only looks")
    func admissionIsPure() {
        let book = Self.book(encode: 2)
        #expect(book.admission(.encode, cost: 2) == .start(units: 2))
        #expect(book.admission(.encode, cost: 3) == .start(units: 2), "bigger than the budget: the whole budget")
        #expect(book.used(.encode) == 0 && book.waiting.isEmpty)
    }

    @Test("a job bigger than the whole budget runs alone on an idle budget, and waits while anything else runs")
    func oversizeJob() {
        var book = Self.book(encode: 2)
        #expect(book.units(.encode, cost: 9) == 2)
        #expect(book.admit(.encode, cost: 1) == .start(units: 1))
        #expect(book.admit(.encode, cost: 9) == .wait(reason: "costs 2 encode units and 1 of 2 are free"))
        book.release(.encode, cost: 1)
        #expect(book.admit(.encode, cost: 9) == .start(units: 2))
        #expect(book.paused(.encode))
        book.release(.encode, cost: 9)
        #expect(book.used(.encode) == 0 && !book.paused(.encode))
    }

    @Test("live and batch count jobs, whatever their cost; full pauses without waiting, a free slot resumes")
    func slotsCountJobs() {
        var book = Self.book(live: 2, batch: 1)
        #expect(book.units(.live, cost: 0) == 1 && book.units(.batch, cost: 5) == 1)
        #expect(book.admit(.batch, cost: 5) == .start(units: 1))
        #expect(book.paused(.batch) && book.waiting[.batch] == nil)
        #expect(book.admit(.batch, cost: 0) == .wait(reason: "all 1 batch slots are busy"))
        #expect(book.waiting[.batch] == nil, "a full class resumes when a job ends; it needs no look later")
        book.release(.batch, cost: 5)
        #expect(!book.paused(.batch) && book.used(.batch) == 0)
        #expect(book.admit(.live, cost: 0) == .start(units: 1))
        #expect(book.admit(.live, cost: 0) == .start(units: 1))
        #expect(book.paused(.live))
    }

    @Test("the look again after a while ends only the pause it was scheduled for")
    func relook() throws {
        var book = Self.book(encode: 2)
        _ = book.admit(.encode, cost: 1)
        _ = book.admit(.encode, cost: 2)
        let first = try #require(book.waiting[.encode])
        book.relook(.encode, pause: first)
        #expect(!book.paused(.encode), "looking again: the consumer resumes")
        #expect(book.admit(.encode, cost: 2) != .start(units: 2))
        let second = try #require(book.waiting[.encode])
        #expect(second != first)
        book.relook(.encode, pause: first)
        #expect(book.paused(.encode), "a stale timer must not end a later pause")
        book.relook(.encode, pause: second)
        #expect(!book.paused(.encode))
    }

    @Test("a class without capacity is never consumed nor started; draining pauses every class and starts nothing")
    func noneAndDraining() {
        var book = Self.book(live: 3, batch: 0, encode: 0)
        #expect(book.admit(.encode, cost: 1) == .wait(reason: "this worker takes no encode jobs"))
        #expect(!book.paused(.encode) && !book.paused(.batch), "not consumed at all, so never paused")
        #expect(book.waiting.isEmpty)
        #expect(book.admit(.live, cost: 0) == .start(units: 1))
        book.drain()
        #expect(book.paused(.live))
        #expect(book.admit(.live, cost: 0) == .wait(reason: "the worker is shutting down"))
        #expect(book.waiting.isEmpty, "draining is no wait for room")
        book.release(.live, cost: 0)
        #expect(book.paused(.live) && book.used(.live) == 0)
    }

    @Test("negative capacities are none, and a release never goes below zero")
    func bounds() {
        var book = SlotBook(capacity: [.encode: -4])
        #expect(book.capacity(.encode) == 0 && book.capacity(.live) == 0)
        book.release(.encode, cost: 3)
        #expect(book.used(.encode) == 0)
    }
}
