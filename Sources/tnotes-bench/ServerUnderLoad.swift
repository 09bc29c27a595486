import Crypto
import Foundation
import Synchronization
import TNotesCore

extension Bench {
    /// The server's `/healthz` p99 while a 50 MiB audio upload and a 10,000-change push run on other
    /// connections, beside its p99 on an idle server. Blocking file or SQLite work on the event loop
    /// would land on every other request's latency.
    func serverUnderLoad(port: Int, token: String, changes: [String], backend: String, calls: Int, audioMiB: Int) throws -> Figure {
        let probe = try LoopbackHTTP(port: port)
        func healthP99(while busy: () -> Bool = { true }) throws -> Double {
            var lat = [Double]()
            for _ in 0..<calls where busy() {
                let t = Date()
                guard try probe.request("GET", "/healthz") == 200 else { throw BenchError("/healthz did not answer 200") }
                lat.append(Date().timeIntervalSince(t) * 1000)
            }
            guard !lat.isEmpty else { throw BenchError("no /healthz sample while the load ran") }
            lat.sort()
            return lat[min(lat.count - 1, Int(Double(lat.count) * 0.99))]
        }
        _ = try healthP99()
        let idle = try healthP99()

        let auth = ["Authorization": "Bearer \(token)"]
        let audio = [UInt8](repeating: 0x5A, count: audioMiB << 20)
        let digest = SHA256.hash(data: audio).map { String(format: "%02x", $0) }.joined()
        let body = Array("{\"deviceId\":\"\(Identifier.make())\",\"changes\":[".utf8) + Array(changes.joined(separator: ",").utf8) + Array("]}".utf8)
        let running = Atomic<Int>(2)
        let errors = ErrorBox()
        let upload = Thread {
            defer { running.subtract(1, ordering: .relaxed) }
            do {
                let c = try LoopbackHTTP(port: port)
                let status = try c.request("PUT", "/v1/audio/\(Identifier.make())",
                                           headers: auth.merging(["X-Content-SHA256": digest]) { a, _ in a }, body: audio)
                if status / 100 != 2 { errors.set("upload answered \(status)") }
            } catch { errors.set("upload: \(error)") }
        }
        let push = Thread {
            defer { running.subtract(1, ordering: .relaxed) }
            do {
                let c = try LoopbackHTTP(port: port)
                let status = try c.request("POST", "/v1/sync/push", headers: auth.merging(["Content-Type": "application/json"]) { a, _ in a },
                                           body: body)
                if status != 200 { errors.set("push answered \(status)") }
            } catch { errors.set("push: \(error)") }
        }
        upload.start()
        push.start()
        let loaded = try healthP99 { running.load(ordering: .relaxed) > 0 }
        while running.load(ordering: .relaxed) > 0 { usleep(1000) }
        if let e = errors.value { throw BenchError(e) }
        return Figure(name: "server /healthz p99 during a \(audioMiB) MiB upload and a \(changes.count)-change push, \(backend)",
                      value: loaded, unit: "ms", baseline: idle, baselineName: "/healthz p99, idle server",
                      target: "< 5 ms", higherIsBetter: false)
    }
}
