import Foundation
import Synchronization
import TNotesClient
import TNotesCore

extension Bench {
    /// "Slow reader": the p99 of `daemon.status` on one connection while another connection loops
    /// `sermon.list {limit: 1000}`, beside the p99 of the same calls on an idle daemon. A read that blocked
    /// the event loop (or queued behind another read) would show as the one connection's cost landing on
    /// the other's latency.
    func slowReader(socket: String, scale: Int, calls: Int) throws -> Figure {
        let c = try RPCConnection(path: socket)
        let lists = Atomic<Int>(0)
        // At least `calls` samples; under load, also for as long as it takes the other connection to finish
        // `minLists` lists, so that the samples span many of them (a list is ~100× a status call).
        func statusP99(minLists: Int = 0) throws -> Double {
            var lat = [Double]()
            lat.reserveCapacity(calls)
            let deadline = Date().addingTimeInterval(60)
            while lat.count < calls || (lists.load(ordering: .relaxed) < minLists && Date() < deadline) {
                let t = Date()
                _ = try c.call("daemon.status")
                lat.append(Date().timeIntervalSince(t) * 1000)
            }
            lat.sort()
            return lat[min(lat.count - 1, Int(Double(lat.count) * 0.99))]
        }
        _ = try statusP99()  // warm-up
        let idle = try statusP99()

        let stop = Atomic<Bool>(false)
        let errors = ErrorBox()
        let reader = Thread {
            do {
                let slow = try RPCConnection(path: socket)
                while !stop.load(ordering: .relaxed) {
                    _ = try slow.call("sermon.list", ["limit": 1000])
                    lists.add(1, ordering: .relaxed)
                }
            } catch { errors.set("slow reader: \(error)") }
        }
        reader.start()
        // The slow reader is under way before the first measured call.
        let deadline = Date().addingTimeInterval(10)
        while lists.load(ordering: .relaxed) == 0 && Date() < deadline && errors.value == nil { usleep(1000) }
        lists.store(0, ordering: .relaxed)
        let loaded = try statusP99(minLists: calls / 50)
        stop.store(true, ordering: .relaxed)
        while !reader.isFinished { usleep(1000) }
        if let e = errors.value { throw BenchError(e) }
        say("  slow reader: \(lists.load(ordering: .relaxed)) sermon.list calls ran beside the measured daemon.status calls")
        return Figure(name: "daemon.status p99 beside a looping sermon.list {limit: 1000} (\(scale)×)", value: loaded, unit: "ms",
                      baseline: idle, baselineName: "daemon.status p99, no other connection busy",
                      target: "< 2 ms at 4×", higherIsBetter: false)
    }
}
