import Foundation
import TNotesCore
import TNotesTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

// A failed service must end tnotesd non-zero (so `Restart=on-failure` restarts it), after the other services
// stopped gracefully, with one log line that names the service and the error.
@Suite("Service failure")
struct ServiceFailureTests {
    @Test("a failing service stops the daemon non-zero, names the service, and leaves no socket file behind",
          arguments: ["socket-server", "systemd"])
    func failingServiceExitsNonZero(service: String) throws {
        let daemon = DaemonProcess(environment: ["TNOTES_FAIL_SERVICE": service])
        try daemon.start()
        let status = daemon.waitForExit(timeout: 20)
        #expect(status != nil, "tnotesd still runs after \(service) failed:\n\(daemon.log)")
        #expect(status != 0, "exit status \(String(describing: status)) after \(service) failed:\n\(daemon.log)")
        let lines = daemon.log.split(separator: "\n").filter { $0.contains("service failed") }
        #expect(lines.count == 1, "one log line names the failed service:\n\(daemon.log)")
        #expect(lines.first?.contains(service) == true, "\(lines)")
        #expect(lines.first?.contains("injected failure") == true, "the line carries the error: \(lines)")
        // The others stopped gracefully: the socket file is removed and the store was closed cleanly.
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath), "socket file left behind:\n\(daemon.log)")
        #expect(daemon.log.contains("tnotesd stopped after a failure"), "\(daemon.log)")
    }

    @Test("after a service failure the store is intact: a restart serves every acknowledged write")
    func storeSurvivesFailure() throws {
        let daemon = DaemonProcess(environment: ["TNOTES_FAIL_SERVICE": "systemd"])
        try daemon.start()
        // The failure comes 300 ms after the services start: this write lands before it.
        let r = try daemon.client().call("sermon.create", ["title": "Kept", "speaker": "Ann", "date": "2025-11-09"])
        let id = try #require(r["id"]?.stringValue)
        #expect(daemon.waitForExit(timeout: 20).map { $0 != 0 } == true, "\(daemon.log)")
        daemon.environment["TNOTES_FAIL_SERVICE"] = nil
        try daemon.start()
        defer { daemon.stop() }
        let c = try daemon.client()
        let got = try c.call("sermon.get", ["id": .string(id)])
        #expect(got["title"]?.stringValue == "Kept")
        let status = try c.call("daemon.status")
        #expect(status["schemaVersion"] != nil)
    }
}
