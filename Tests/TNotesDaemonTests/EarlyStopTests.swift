import Foundation
import Testing
import TNotesTestSupport

/// A stop request the moment the socket accepts (before the service group has taken the signals over)
/// is still a graceful stop: exit 0, socket file removed, store closed cleanly.
@Suite("lifecycle: SIGTERM right after start")
struct EarlyStopTests {
    @Test(arguments: 0..<5)
    func sigtermAsSoonAsTheSocketAccepts(round: Int) throws {
        let daemon = DaemonProcess()
        let p = try daemon.launch()
        let deadline = Date().addingTimeInterval(30)
        while !SocketProbe.accepts(daemon.socketPath) {
            #expect(p.isRunning, "tnotesd exited before it accepted:\n\(daemon.log)")
            if !p.isRunning || Date() > deadline { return }
            usleep(500)
        }
        kill(p.processIdentifier, SIGTERM)
        let status = daemon.waitForExit(timeout: 30)
        #expect(status == 0, "exit status \(String(describing: status)):\n\(daemon.log)")
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath), "the socket file was left behind")
        #expect(FileManager.default.fileExists(atPath: daemon.dataDir + "/tnotes.sqlite-clean"), "the store was not closed cleanly")
    }
}
