import Testing
@testable import JobQueue

struct PublisherConfirmsTests {
    @Test("sequence numbers start at 1 and single acks settle one publish")
    func single() {
        var confirms = PublisherConfirms<String>()
        #expect(confirms.published("a") == 1)
        #expect(confirms.published("b") == 2)
        #expect(confirms.published("c") == 3)
        #expect(confirms.settle(deliveryTag: 2, multiple: false) == ["b"])
        #expect(confirms.count == 2)
        #expect(confirms.settle(deliveryTag: 2, multiple: false) == [])  // duplicate ack: ignored
    }

    @Test("multiple settles every outstanding publish up to the tag, skipping ones already settled")
    func multiple() {
        var confirms = PublisherConfirms<Int>()
        for waiter in 1...5 { _ = confirms.published(waiter) }
        #expect(confirms.settle(deliveryTag: 2, multiple: false) == [2])
        #expect(confirms.settle(deliveryTag: 4, multiple: true) == [1, 3, 4])
        #expect(confirms.settle(deliveryTag: 9, multiple: true) == [5])
        #expect(confirms.count == 0)
    }

    @Test("reset returns every outstanding waiter and restarts numbering for the new channel")
    func reset() {
        var confirms = PublisherConfirms<Int>()
        _ = confirms.published(10)
        _ = confirms.published(11)
        #expect(confirms.reset() == [10, 11])
        #expect(confirms.published(12) == 1)
    }
}
