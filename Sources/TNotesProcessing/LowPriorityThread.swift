import CPocketSphinx
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// How hard a job's work competes for the CPU. Both levels leave the socket server, sync and the desktop
/// ahead of it; they differ in whether the job moves at all while the machine is busy.
public enum JobPriority: String, Sendable, Equatable {
    /// A job the daemon queued on its own (auto-transcribe after an import, auto-summarize after a
    /// transcript): SCHED_IDLE (and nice 19), so it only ever takes CPU that nothing else wants.
    case idle
    /// A job a person asked for (`transcript.generate`, `summary.generate`, `chat.ask`, `jobs.retry`): the
    /// normal policy, SCHED_OTHER, at nice 10. Not SCHED_IDLE, because SCHED_IDLE gets no CPU while anything
    /// else wants it: a `transcript.generate` of 10 s of speech asked for by hand did not finish in 180 s while
    /// a compile kept both cores busy. At nice 10 a job gets about a tenth of a core beside a busy nice-0
    /// process (CFS weights 110 against 1024), so it still yields to the desktop but always finishes.
    case handRequested

    /// The nice value of a thread or process running at this priority.
    public var nice: Int32 { self == .idle ? 19 : 10 }

    /// The scheduling policy (`SCHED_IDLE` is 5 in <linux/sched.h>, `SCHED_OTHER` 0).
    public var policy: Int32 { self == .idle ? JobPriority.schedIdle : JobPriority.schedOther }

    /// SCHED_IDLE and SCHED_OTHER from <linux/sched.h>; Glibc's module leaves SCHED_IDLE out without _GNU_SOURCE.
    public static let schedIdle: Int32 = 5
    public static let schedOther: Int32 = 0

    /// Sets the priority of one thread (`tid`, as `gettid` gives it; 0: the calling thread) or of a child
    /// process (its pid names its main thread). On Linux `setpriority(PRIO_PROCESS, tid)` and
    /// `sched_setscheduler(tid)` act on that one thread, not the whole process. Returns false when the kernel
    /// refused: leaving SCHED_IDLE, or lowering a nice value, needs CAP_SYS_NICE (or RLIMIT_NICE), so a job
    /// promoted while it runs may stay where it was (`JobContext.raise`).
    @discardableResult
    public func apply(to tid: pid_t = 0) -> Bool {
        let target = tid == 0 ? tn_gettid() : tid
        // The nice value first: leaving SCHED_IDLE is allowed only when the thread's nice value is one the caller
        // may set, which a promotion from nice 19 to 10 makes true for a privileged daemon.
        let niced = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(target), nice) == 0
        var param = sched_param(sched_priority: 0)
        let scheduled = sched_setscheduler(target, policy, &param) == 0
        return niced && scheduled
    }
}

/// Runs a job's CPU-heavy work (speech decoding, summarising) on a thread of its own at the job's priority
/// (`JobPriority`), so the socket server and sync always get the CPU first and the desktop stays responsive.
/// Never on Swift's cooperative pool or a NIO event loop, whose few threads would be held for minutes.
/// Processes the work starts (ffmpeg) inherit the thread's policy and nice value. A thread of its own, not one of a
/// pool (TNotesLifecycle's BlockingWork.swift): a pool thread would keep the job's policy and nice value for
/// whatever ran on it next.
enum LowPriorityThread {
    /// `purpose` names the thread (at most 15 bytes: `tnotes-asr`, `tnotes-text`, `tnotes-io`), as `ps -L`
    /// and /proc/<pid>/task/<tid>/comm show it. With a `job`, the thread takes the job's priority and the job
    /// can raise it while it runs (a hand request of an automatic job already under way).
    static func run<T: Sendable>(_ purpose: String, job: JobContext? = nil, priority: JobPriority = .idle,
                                 _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (cont: CheckedContinuation<T, any Error>) in
            let box = Unmanaged.passRetained(ThreadBody {
                _ = tn_set_thread_name(purpose)
                let tid = tn_gettid()
                if let job { job.enter(thread: tid) } else { priority.apply() }
                defer { job?.leave(thread: tid) }
                cont.resume(with: Result { try body() })
            })
            var attributes = pthread_attr_t()
            pthread_attr_init(&attributes)
            pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
            // The decoder's recursion and buffers are modest; 8 MiB is generous.
            pthread_attr_setstacksize(&attributes, 8 << 20)
            var thread = pthread_t()
            let rc = pthread_create(&thread, &attributes, { raw in
                guard let raw else { return nil }
                let body = Unmanaged<ThreadBody>.fromOpaque(raw).takeRetainedValue()
                body.run()
                return nil
            }, box.toOpaque())
            pthread_attr_destroy(&attributes)
            if rc != 0 {
                box.release()
                cont.resume(throwing: PermanentJobError("cannot start a worker thread: \(String(cString: strerror(rc)))"))
            }
        }
    }
}

/// The threads and child processes of one running job, and its priority: every one of them runs at it, and
/// `raise` moves them all at once.
final class JobPriorityState: Sendable {
    private struct State {
        var priority: JobPriority
        var threads: Set<pid_t> = []
        var children: Set<pid_t> = []
    }
    private let state: Mutex<State>

    init(_ priority: JobPriority) { state = Mutex(State(priority: priority)) }

    var priority: JobPriority { state.withLock { $0.priority } }

    /// The calling thread (`tid`) takes the job's priority and is moved with it from now on. Under the lock,
    /// so a `raise` at the same moment either sees the thread or was already seen by it.
    func enter(thread tid: pid_t) {
        state.withLock { s in
            s.priority.apply(to: tid)
            s.threads.insert(tid)
        }
    }

    func leave(thread tid: pid_t) { state.withLock { _ = $0.threads.remove(tid) } }

    /// A child process the job started: it takes the job's priority (a child spawned from the job's thread
    /// has it already; one spawned from elsewhere, a command engine, gets it here) and moves with it.
    func adopt(child pid: pid_t) {
        state.withLock { s in
            s.priority.apply(to: pid)
            s.children.insert(pid)
        }
    }

    func release(child pid: pid_t) { state.withLock { _ = $0.children.remove(pid) } }

    /// Moves the job and everything it runs to `priority`; false when the kernel refused some of it.
    @discardableResult
    func raise(to priority: JobPriority) -> Bool {
        state.withLock { s in
            guard s.priority != priority else { return true }
            s.priority = priority
            var ok = true
            for tid in s.threads { ok = priority.apply(to: tid) && ok }
            for pid in s.children { ok = priority.apply(to: pid) && ok }
            return ok
        }
    }
}

private final class ThreadBody {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}
