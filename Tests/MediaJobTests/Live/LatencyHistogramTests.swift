import Testing
@testable import MediaJob

@Suite("LatencyHistogram")
struct LatencyHistogramTests {
    @Test("percentiles land within the bucket precision (1/16)")
    func percentiles() {
        var histogram = LatencyHistogram()
        for value in 1...10_000 { histogram.record(microseconds: UInt64(value)) }
        #expect(histogram.count == 10_000)
        let p50 = Double(histogram.percentile(0.5))
        let p99 = Double(histogram.percentile(0.99))
        #expect(abs(p50 - 5000) / 5000 <= 1.0 / 16)
        #expect(abs(p99 - 9900) / 9900 <= 1.0 / 16)
        #expect(histogram.percentile(1) == 10_000)
    }

    @Test("small values are exact; bucket edges bound their values", arguments: [0, 1, 15, 16, 17, 31, 32, 33, 1000, 123_456, 1 << 35])
    func buckets(_ value: Int) {
        let bucket = LatencyHistogram.bucket(of: UInt64(value))
        #expect(LatencyHistogram.upperEdge(of: bucket) >= UInt64(value))
        if bucket > 0 { #expect(LatencyHistogram.upperEdge(of: bucket - 1) < UInt64(value)) }
        if value < 32 { #expect(LatencyHistogram.upperEdge(of: bucket) == UInt64(value)) }
    }

    @Test("an empty histogram reports zero")
    func empty() {
        #expect(LatencyHistogram().percentile(0.5) == 0)
    }
}
