import Foundation
import Synchronization
import Testing
import TNotesTestSupport
@testable import TNotesSync

/// The tasks a sync cycle starts beside itself (push in flight, next pull page) are cancelled with the cycle,
/// and forgotten, with their results, once they finish. Regression: the registry kept every task's cancel
/// closure (and so the task and its decoded page) until the next cycle; after a first sync of 120 k records
/// the idle daemon held 450 MiB of pulled pages.
@Suite("sync: in-flight tasks")
struct InFlightTasksTests {
    final class Flag: Sendable { let value = Mutex(false) }
    final class Page: Sendable {
        let bytes = [UInt8](repeating: 7, count: 1 << 20)
        let freed: Flag
        init(freed: Flag) { self.freed = freed }
        deinit { freed.value.withLock { $0 = true } }
    }

    @Test("a finished task's result is freed once the cycle has used it")
    func finishedTasksAreForgotten() async throws {
        let tasks = InFlightTasks()
        let flags = (0..<8).map { _ in Flag() }
        for flag in flags {
            // As the engine uses them: start, await the value, drop it.
            let task = tasks.start { Page(freed: flag) }
            let page = try await task.value
            #expect(page.bytes.count == 1 << 20)
        }
        // The Swift runtime lets go of a finished task (and so of its result) on the thread that ran it, just
        // after it has woken the awaiting code: the last page may be freed a moment after `value` returned.
        // The regression held every page until the next cycle, so a short wait still tells the two apart.
        for (i, flag) in flags.enumerated() {
            #expect(eventually(timeout: 2, every: 0.01) { flag.value.withLock { $0 } }, "page \(i) is still held after its task finished")
        }
    }

    @Test("cancelAll cancels a running task")
    func cancelAllCancels() async throws {
        let tasks = InFlightTasks()
        let task = tasks.start { () async throws -> Int in
            try await Task.sleep(for: .seconds(30))
            return 1
        }
        try await Task.sleep(for: .milliseconds(50))
        tasks.cancelAll()
        // Not cancelled, the task would sleep its 30 s out and return 1.
        await #expect(throws: CancellationError.self) { try await task.value }
    }
}
