import Dispatch
import Logging
import TNotesFuzzSupport
import TNotesCore
import TNotesRPC

// libFuzzer target over the socket protocol minus the socket: the input is split into lines as the
// framing does, and each line goes through JSON-RPC decoding, dispatch and param validation against a
// table that uses every field type the daemon's methods use. Nothing is stored: handlers only echo.
//
// Fuzz:   FUZZ_SECONDS=60 scripts/fuzz.sh (coverage + ASan build, libFuzzer through TNotesFuzzSupport)
// Replay: tnotes-fuzz-rpc FILE… (a normal build runs the committed corpus through the same code).

let table: MethodTable = {
    var t = MethodTable(title: "fuzz", version: "0")
    let echo: MethodHandler = { p, _ in .object(p.values) }
    t.add(MethodSpec("sermon.create", summary: "", params: [
        ParamSpec("title", .string, required: true), ParamSpec("date", .time), ParamSpec("speaker", .string, nullable: true),
        ParamSpec("id", .uuid),
    ], handler: echo))
    t.add(MethodSpec("note.add", summary: "", params: [
        ParamSpec("sermonId", .uuid, required: true), ParamSpec("text", .string, required: true),
        ParamSpec("timestamp", .number(min: 0), required: true),
    ], handler: echo))
    t.add(MethodSpec("transcript.set", summary: "", params: [
        ParamSpec("sermonId", .uuid, required: true), ParamSpec("text", .string, required: true),
        ParamSpec("status", .enumeration(StatusValues.processing)), ParamSpec("segments", .segments),
    ], handler: echo))
    t.add(MethodSpec("sermon.list", summary: "", params: [
        ParamSpec("limit", .integer(min: 1, max: 1000)), ParamSpec("includeArchived", .bool), ParamSpec("after", .string, nullable: true),
    ], handler: echo))
    t.add(MethodSpec("events.subscribe", summary: "", params: [
        ParamSpec("topics", .arrayOf(.enumeration(["record.changed", "sync.state"]))),
    ], handler: echo))
    t.add(MethodSpec("audio.set", summary: "", params: [ParamSpec("audio", .audio, nullable: true), ParamSpec("path", .text)],
                     handler: echo))
    return t
}()

let dispatcher = Dispatcher(table: table, logger: Logger(label: "fuzz", factory: { _ in SwiftLogNoOpLogHandler() }))
let context = ConnectionContext(id: 1, peerUID: 0, peerPID: 0)

final class Box: @unchecked Sendable { var value: JSON?? = nil }

func runOne(_ bytes: [UInt8]) {
    for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
        var l = Array(line)
        if l.last == UInt8(ascii: "\r") { l.removeLast() }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        let input = l
        Task {
            box.value = .some(await dispatcher.handle(line: input, context: context))
            done.signal()
        }
        done.wait()
        // Every reply is one valid JSON-RPC 2.0 text on one line.
        if case .some(.some(let reply)) = box.value {
            let text = reply.bytes
            precondition(!text.contains(UInt8(ascii: "\n")), "a reply spans lines")
            precondition((try? JSON.parse(text)) != nil, "a reply is not valid JSON")
            let items = reply.arrayValue ?? [reply]
            for r in items { precondition(r["jsonrpc"] == "2.0", "a reply without jsonrpc 2.0") }
        }
    }
}

@main
struct Entry {
    static func main() {
        FuzzEntry.main(runOne)
    }
}
