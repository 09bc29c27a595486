import Foundation
import TNotesTestSupport
import Testing

// tnotes-bench's arguments: a wrong one is refused before anything runs (a mistyped flag once started a
// full 40-minute run), naming the flag, with ArgumentParser's usage status 64.
@Suite("tnotes-bench arguments")
struct BenchArgumentTests {
    @Test("a bad or unknown argument exits 64 at once, naming it", arguments: [
        (["--only", "sync,foo"], "--only: unknown part foo"),
        (["--scales", "1,x"], "--scales"),
        (["--scales", "0"], "--scales"),
        (["--postgres", "mysql://h/db"], "--postgres"),
        (["--bogus"], "--bogus"),
    ])
    func refused(args: [String], named: String) throws {
        let r = try ProcessRunner.run(Binaries.path("tnotes-bench"), args, environment: ProcessInfo.processInfo.environment,
                                      stdin: nil, timeout: 60)
        #expect(r.status == 64)
        #expect(r.stderr.contains(named))
        #expect(!r.stdout.contains("durable note.add"))
    }

    @Test("--help lists every option and runs nothing")
    func help() throws {
        let r = try ProcessRunner.run(Binaries.path("tnotes-bench"), ["--help"], environment: ProcessInfo.processInfo.environment,
                                      stdin: nil, timeout: 60)
        #expect(r.status == 0)
        for option in ["--quick", "--scales", "--out", "--postgres", "--only", "--keep", "--cold-memory"] {
            #expect(r.stdout.contains(option))
        }
        #expect(!r.stdout.contains("durable note.add"))
    }
}
