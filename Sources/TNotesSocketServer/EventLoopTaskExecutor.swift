import NIOCore

/// Runs a connection's task on the event loop that owns its channel.
///
/// Why: by default the task runs on Swift's cooperative pool, so every request crossed threads four
/// times (loop → pool to read the line, pool → loop to write the answer, and the same again for a
/// write's trip to the store queue). With this preference a read is answered on the loop thread where its
/// line arrived, and a write crosses only to the store queue and back. Handlers stay short: anything
/// long (audio copies, the store's commits) already runs on its own queue.
final class EventLoopTaskExecutor: TaskExecutor, Sendable {
    let loop: any EventLoop

    init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
