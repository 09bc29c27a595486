import Foundation
import SystemPackage

/// A socket with a read-ahead buffer.
final class ProxyConnection {
    let fd: Int32
    var buffer = [UInt8]()

    init(fd: Int32) { self.fd = fd }

    /// Reads into the buffer; false on EOF, error or timeout. It waits in poll(2) in short slices, so that a
    /// stopping proxy (`stop`) and the timeout are noticed; swift-system does not wrap poll, so an interrupted
    /// poll is retried here. The read itself is swift-system's.
    private func fill(timeout: Double, stop: () -> Bool = { false }) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if stop() { return false }
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { return false }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let r = poll(&pfd, 1, Int32(min(left, 0.2) * 1000) + 1)
            if r < 0 { if errno == EINTR { continue }; return false }
            if r == 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n: Int
            do {
                n = try chunk.withUnsafeMutableBytes { try FileDescriptor(rawValue: fd).read(into: $0) }
            } catch let e as Errno where e == .wouldBlock {
                continue
            } catch {
                return false
            }
            if n == 0 { return false }
            buffer += chunk[0..<n]
            return true
        }
    }

    /// The bytes up to and including the blank line ending an HTTP head.
    func readHead(stop: () -> Bool, timeout: Double = 60) -> [UInt8]? {
        while true {
            if let end = Self.headEnd(buffer) {
                let head = Array(buffer[..<end])
                buffer.removeSubrange(..<end)
                return head
            }
            if buffer.count > 256 << 10 { return nil }
            guard fill(timeout: timeout, stop: stop) else { return nil }
        }
    }

    static func headEnd(_ b: [UInt8]) -> Int? {
        guard b.count >= 4 else { return nil }
        for i in 0...(b.count - 4) where b[i] == 13 && b[i + 1] == 10 && b[i + 2] == 13 && b[i + 3] == 10 {
            return i + 4
        }
        return nil
    }

    func read(exactly n: Int) -> [UInt8]? {
        while buffer.count < n {
            guard fill(timeout: 60) else { return nil }
        }
        let out = Array(buffer[..<n])
        buffer.removeSubrange(..<n)
        return out
    }

    /// Reads and discards up to `n` bytes (stops early on EOF or timeout); the count discarded.
    @discardableResult
    func drain(_ n: Int, timeout: Double = 60) -> Int {
        var done = 0
        while done < n {
            if buffer.isEmpty { guard fill(timeout: timeout) else { break } }
            let take = min(n - done, buffer.count)
            buffer.removeSubrange(..<take)
            done += take
        }
        return done
    }

    /// Copies `n` bytes (or until EOF when `untilEOF`) to `out`; false when the stream ended early or a write failed.
    @discardableResult
    func relay(_ n: Int, to out: Int32, untilEOF: Bool = false, bytesPerSecond: Int? = nil) -> Bool {
        var done = 0
        let started = Date()
        while done < n {
            if buffer.isEmpty {
                guard fill(timeout: 120) else { return untilEOF }
            }
            var take = min(n - done, buffer.count)
            if let rate = bytesPerSecond, rate > 0 {
                // Small steps, each sent no earlier than the rate allows.
                take = min(take, max(1, rate / 20))
                let due = Double(done) / Double(rate) - Date().timeIntervalSince(started)
                if due > 0 { usleep(UInt32(due * 1_000_000)) }
            }
            guard proxySendAll(out, Array(buffer[..<take])) else { return false }
            buffer.removeSubrange(..<take)
            done += take
        }
        return true
    }

    /// Copies a chunked body to `out`, up to and including its last chunk and trailer.
    func relayChunked(to out: Int32) -> Bool {
        while true {
            // chunk-size line
            var line: [UInt8]
            while true {
                if let i = firstCRLF() {
                    line = Array(buffer[..<(i + 2)])
                    buffer.removeSubrange(..<(i + 2))
                    break
                }
                guard fill(timeout: 60) else { return false }
            }
            guard proxySendAll(out, line) else { return false }
            let sizeText = String(decoding: line.prefix { $0 != 59 && $0 != 13 }, as: UTF8.self)
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else { return false }
            if size == 0 {
                // trailer lines until an empty one
                while true {
                    while firstCRLF() == nil { guard fill(timeout: 60) else { return false } }
                    let i = firstCRLF()!
                    let l = Array(buffer[..<(i + 2)])
                    buffer.removeSubrange(..<(i + 2))
                    guard proxySendAll(out, l) else { return false }
                    if i == 0 { return true }
                }
            }
            guard relay(size + 2, to: out) else { return false }
        }
    }

    private func firstCRLF() -> Int? {
        guard buffer.count >= 2 else { return nil }
        for i in 0..<(buffer.count - 1) where buffer[i] == 13 && buffer[i + 1] == 10 { return i }
        return nil
    }
}
