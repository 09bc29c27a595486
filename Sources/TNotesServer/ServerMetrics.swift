import Prometheus

/// What `/metrics` reports, in Prometheus text format (swift-prometheus): requests by method and status,
/// pushed changes by result, pulled changes, audio bytes by direction. Nothing that identifies a user.
public struct ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()

    public init() {}

    func request(method: String, status: Int) {
        registry.makeCounter(name: "tnotes_http_requests_total", labels: [("method", method), ("status", String(status))],
                             help: "HTTP requests answered, by method and status").increment()
    }

    func pushed(result: String, count: Int = 1) {
        registry.makeCounter(name: "tnotes_push_changes_total", labels: [("result", result)],
                             help: "Pushed changes, by result (applied, duplicate, superseded, rejected)").increment(by: Int64(count))
    }

    func pulled(_ count: Int) {
        registry.makeCounter(name: "tnotes_pull_changes_total", help: "Changes sent to pulling devices").increment(by: Int64(count))
    }

    func snapshot(_ count: Int) {
        registry.makeCounter(name: "tnotes_snapshot_records_total", help: "Records sent in snapshots to devices that never pulled")
            .increment(by: Int64(count))
    }

    func audio(direction: String, bytes: Int64) {
        registry.makeCounter(name: "tnotes_audio_bytes_total", labels: [("direction", direction)],
                             help: "Audio bytes stored (in) and served (out)").increment(by: bytes)
    }

    func text() -> [UInt8] { registry.emitToBuffer() }
}
