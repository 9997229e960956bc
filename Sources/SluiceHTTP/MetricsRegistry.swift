// The Prometheus side of the worker's swift-metrics.
import Prometheus
import Sluice

/// The registry the worker's metrics are recorded into and `/metrics` is rendered from.
public final class MetricsRegistry: Sendable {
    /// The metrics themselves; `factory` creates them.
    public let registry: PrometheusCollectorRegistry
    /// Hand this to `WorkerMetrics`; job durations get buckets from seconds to a day.
    public let factory: PrometheusMetricsFactory

    public init() {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets[WorkerMetrics.Name.duration] = WorkerMetrics.durationBuckets
        self.registry = registry
        self.factory = factory
    }

    /// Every metric in the Prometheus text exposition format (version 0.0.4).
    public func exposition() -> [UInt8] {
        registry.emitToBuffer()
    }

    /// The content type of `exposition()`.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"
}
