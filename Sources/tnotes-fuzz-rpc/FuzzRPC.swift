import Dispatch
import Foundation
import Logging
import TNotesFuzzSupport
import TNotesCore
import TNotesDaemon
import TNotesRPC
import TNotesStore

// libFuzzer target over the socket protocol minus the socket: the input is split into lines as the
// framing does, and each line goes through JSON-RPC decoding, dispatch, param validation and the daemon's
// own handlers (`Daemon.localMethodTable`) over a real store, on a tmpfs file.
//
// Speed: the store runs inline (no thread pool) and each line's async answer runs on `InlineTaskExecutor`,
// so a line is answered on the fuzzer's own thread. The earlier driver (a Task plus a semaphore per line)
// spent most of its time in thread hand-offs: 330 inputs/s against an echo table.
//
// Checked for every line: the reply is one line of JSON-RPC 2.0 (re-parsed as JSON for one input in 16), with
// the request's id; an invalid-params error names its field; no handler reports an internal error (-32603).
// Every `inputsPerStore` inputs: the store's kept outbox counts equal a fresh count and `PRAGMA quick_check`
// passes; then a fresh store takes over.
//
// Fuzz:   FUZZ_SECONDS=60 scripts/fuzz.sh (coverage build, two workers; the kept inputs replayed under ASan)
// Replay: tnotes-fuzz-rpc FILE… (a normal build runs the committed corpus through the same code).

/// Runs every job it is given at once, on the thread that enqueues it. A line's answer involves no real
/// suspension here (the store is inline), so the whole answer runs inside `Task.init`.
final class InlineTaskExecutor: TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        job.runSynchronously(on: asUnownedTaskExecutor())
    }
}

/// Unchecked because: written by the line's task and read by the fuzzer's thread only after the semaphore
/// (or, inline, after `Task.init` has returned on that same thread).
final class ReplyBox: @unchecked Sendable {
    var reply: JSON?
}

struct Harness {
    let store: Store
    let dispatcher: Dispatcher
    let directory: String
    let context = ConnectionContext(id: 1, peerUID: 0, peerPID: 0)
    let executor = InlineTaskExecutor()

    /// A store in a directory of its own (tmpfs when there is one: fsyncs cost nothing there, and nothing is
    /// left on disk). `generation` names the directory, so a fresh harness never sees an earlier one's files.
    init(generation: Int) {
        let dir = "\(fuzzDirectory)/\(generation)"
        directory = dir
        try? FileManager.default.removeItem(atPath: dir)
        try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let logger = Logger(label: "fuzz", factory: { _ in SwiftLogNoOpLogHandler() })
        store = try! Store(path: "\(dir)/tnotes.sqlite", backupDirectory: "\(dir)/backups", logger: logger, readers: 1, inline: true)
        dispatcher = Dispatcher(table: Daemon.localMethodTable(store: store, dataDirectory: dir), logger: logger)
    }

    /// Checks the store, then closes it and removes its files.
    func retire() {
        checkStore()
        store.close()
        try? FileManager.default.removeItem(atPath: directory)
    }

    func answer(_ line: [UInt8]) -> JSON? {
        let box = ReplyBox()
        let done = DispatchSemaphore(value: 0)
        let dispatcher = self.dispatcher, context = self.context
        Task(executorPreference: executor) {
            box.reply = await dispatcher.handle(line: line, context: context)
            done.signal()
        }
        done.wait()  // already signalled, unless something in the answer really suspended
        return box.reply
    }

    /// What every reply must be, whatever the request was.
    static func check(reply: JSON, request: [UInt8]) {
        let text = reply.bytes
        precondition(!text.contains(UInt8(ascii: "\n")), "a reply spans lines")
        // Re-parsed to prove the serializer's output is JSON, one input in 16: the serializer is the same few
        // code paths for every reply, and re-parsing every reply was a third of the target's time (perf,
        // 2026-11-25). The push target parses at millions of inputs a minute; this check is about the writer.
        if inputs % 16 == 0 {
            precondition((try? JSON.parse(text)) != nil, "a reply is not valid JSON")
        }
        let requestJSON = try? JSON.parse(request)
        let replies = reply.arrayValue ?? [reply]
        for r in replies {
            precondition(r["jsonrpc"] == "2.0", "a reply without jsonrpc 2.0")
            precondition((r["result"] == nil) != (r["error"] == nil), "a reply needs exactly one of result and error")
            if let error = r["error"] {
                let code = error["code"]?.int64Value
                precondition(code != nil && error["message"]?.stringValue != nil, "an error without code or message")
                precondition(code != -32603, "a handler failed internally: \(error)")
                if code == -32602 {
                    precondition(!(error["data"]?["field"]?.stringValue ?? "").isEmpty, "invalid params without the field")
                }
            }
        }
        // A single call with a usable id gets that id back.
        if let object = requestJSON?.objectValue, let id = object["id"], reply.arrayValue == nil,
           reply["error"]?["code"]?.int64Value != -32600 {
            precondition(reply["id"] == id, "the reply's id is not the request's")
        }
    }

    /// The store's own invariants after many inputs.
    func checkStore() {
        let (kept, counted, quick) = try! store.readSync { s -> (OutboxCounts, OutboxCounts, String) in
            (store.outboxCounts, try s.countOutbox(), try s.quickCheck())
        }
        precondition(kept == counted, "kept outbox counts \(kept) differ from a fresh count \(counted)")
        precondition(quick == "ok", "quick_check: \(quick)")
    }
}

let fuzzDirectory: String = {
    let dir = "\(FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory())/tnotes-fuzz-rpc-\(getpid())"
    atexit { try? FileManager.default.removeItem(atPath: fuzzDirectory) }
    return dir
}()
/// Inputs a store serves before the next one starts empty. A store that only grows makes every input slower
/// (a `sermon.list` of thousands of sermons, serialized and checked): the rate fell by a third within 30 s.
/// A fresh store also keeps an input's effect close to what it would do alone, which keeps crashes reproducible.
let inputsPerStore = 2_048
nonisolated(unsafe) var harness = Harness(generation: 0)
nonisolated(unsafe) var inputs = 0

func runOne(_ bytes: [UInt8]) {
    for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
        var l = Array(line)
        if l.last == UInt8(ascii: "\r") { l.removeLast() }
        if let reply = harness.answer(l) { Harness.check(reply: reply, request: l) }
    }
    inputs += 1
    if inputs % inputsPerStore == 0 {
        harness.retire()
        harness = Harness(generation: inputs / inputsPerStore)
    }
}

@main
struct Entry {
    static func main() {
        FuzzEntry.main(runOne)
    }
}
