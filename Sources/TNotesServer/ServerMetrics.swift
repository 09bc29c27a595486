import Prometheus

/// What `/metrics` reports, in Prometheus text format (swift-prometheus): requests by method and status,
/// pushed changes by result, pulled changes, audio bytes by direction. Nothing that identifies a user.
public struct ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()

    public init() {}

    // The metrics' names are namespace_metricName_unitName: tnotes_http_requests_total and so on. Computed:
    // the descriptor is not Sendable.
    static var requests: MetricNameDescriptor {
        MetricNameDescriptor(namespace: "tnotes", metricName: "http_requests", unitName: "total",
            helpText: "HTTP requests answered, by method and status")
    }
    static var pushedChanges: MetricNameDescriptor {
        MetricNameDescriptor(namespace: "tnotes", metricName: "push_changes", unitName: "total",
            helpText: "Pushed changes, by result (applied, duplicate, superseded, rejected)")
    }
    static var pulledChanges: MetricNameDescriptor {
        MetricNameDescriptor(namespace: "tnotes", metricName: "pull_changes", unitName: "total",
            helpText: "Changes sent to pulling devices")
    }
    static var snapshotRecords: MetricNameDescriptor {
        MetricNameDescriptor(namespace: "tnotes", metricName: "snapshot_records", unitName: "total",
            helpText: "Records sent in snapshots to devices that never pulled")
    }
    static var audioBytes: MetricNameDescriptor {
        MetricNameDescriptor(namespace: "tnotes", metricName: "audio_bytes", unitName: "total",
            helpText: "Audio bytes stored (in) and served (out)")
    }

    static var refusedRequests: MetricNameDescriptor {
        MetricNameDescriptor(namespace: "tnotes", metricName: "refused_requests", unitName: "total",
            helpText: "Requests refused by the server's limits: 401 (no_token, unknown_token, revoked), 413 (audio_quota), 429 (token, address)")
    }
    static var quotaRejections: MetricNameDescriptor {
        MetricNameDescriptor(namespace: "tnotes", metricName: "quota_rejections", unitName: "total",
            helpText: "Pushed changes and audio uploads refused for a user's quota, by kind (records, audio)")
    }

    func request(method: String, status: Int) {
        registry.makeCounter(descriptor: Self.requests, labels: [("method", method), ("status", String(status))]).increment()
    }

    func pushed(result: String, count: Int = 1) {
        registry.makeCounter(descriptor: Self.pushedChanges, labels: [("result", result)]).increment(by: Int64(count))
    }

    func pulled(_ count: Int) {
        registry.makeCounter(descriptor: Self.pulledChanges).increment(by: Int64(count))
    }

    func snapshot(_ count: Int) {
        registry.makeCounter(descriptor: Self.snapshotRecords).increment(by: Int64(count))
    }

    func audio(direction: String, bytes: Int64) {
        registry.makeCounter(descriptor: Self.audioBytes, labels: [("direction", direction)]).increment(by: bytes)
    }

    func refused(status: Int, reason: String) {
        registry.makeCounter(descriptor: Self.refusedRequests, labels: [("status", String(status)), ("reason", reason)]).increment()
    }

    func quotaRejected(kind: String, count: Int = 1) {
        registry.makeCounter(descriptor: Self.quotaRejections, labels: [("kind", kind)]).increment(by: Int64(count))
    }

    func text() -> [UInt8] { registry.emitToBuffer() }
}
