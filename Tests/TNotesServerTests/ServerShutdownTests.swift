import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

// A graceful stop is bounded. A client that stops reading halfway through an audio download leaves the
// server's write pending for good; Hummingbird waits for every in-flight response, so without a bound
// SIGTERM left the server running until systemd (or the test harness) killed it.
@Suite("tnotes-server graceful stop")
struct ServerShutdownTests {
    @Test("SIGTERM while a client has stopped reading a download: the server exits 0 after shutdown_grace_seconds",
          arguments: Backend.allCases)
    func stalledDownloadDoesNotHoldTheStop(backend: Backend) throws {
        let grace = 1.0
        let server = try backend.makeServer()
        let config = server.dir.file("tnotes-server.toml")
        try Data("shutdown_grace_seconds = \(Int(grace))\n".utf8).write(to: URL(fileURLWithPath: config))
        server.extraArguments = ["--config", config]
        let token = try server.addUser("alice")
        try server.start()
        defer { server.stop() }

        let sid = Wire.id()
        let bytes = testBytes(16 << 20, seed: 7)
        let put = try server.client(token).putAudio(sid, bytes, headers: ["X-Content-SHA256": TestSHA256.hex(bytes)])
        #expect((200...201).contains(put.status), "PUT: \(put.status) \(put.text)")

        // A raw connection that asks for the whole blob, reads its first bytes, and then reads no more.
        let fd = try #require(FaultProxy.connectPublic(host: "127.0.0.1", port: server.port))
        defer { close(fd) }
        var small: Int32 = 4096
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let request = "GET /v1/audio/\(sid) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let got = recv(fd, &buffer, buffer.count, 0)
        #expect(got > 0, "the download did not start")
        #expect(String(decoding: buffer.prefix(max(0, got)), as: UTF8.self).hasPrefix("HTTP/1.1 200"))
        Thread.sleep(forTimeInterval: 0.3)  // the server's send buffer fills

        let t0 = Date()
        let status = server.stop(timeout: 20)
        let seconds = Date().timeIntervalSince(t0)
        #expect(status == 0, "exit status \(String(describing: status)) after \(seconds) s:\n\(server.log.suffix(3000))")
        #expect(seconds < grace + 4, "the server took \(seconds) s to stop (grace \(grace) s)")
        #expect(seconds >= grace - 0.2, "the in-flight download was cut before the grace period (\(seconds) s)")
    }
}
