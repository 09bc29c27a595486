import TNotesFuzzSupport
import TNotesCore

// libFuzzer target over the server's push body decoding (`PushRequest.decode`, which the server's push
// route runs): no input may crash or hang; every change is either a valid Change or a FieldError, and a
// record text kept as it came (`JSON.parseChanges`) is exactly the decoded record's canonical text.
//
// Fuzz:   FUZZ_SECONDS=60 scripts/fuzz.sh (coverage + ASan build, libFuzzer through TNotesFuzzSupport)
// Replay: tnotes-fuzz-push FILE…

func runOne(_ bytes: [UInt8]) {
    guard let request = try? PushRequest.decode(bytes: bytes) else { return }
    for item in request.items {
        if case .success(let change) = item.change {
            // What decodes must survive its own round trip unchanged (the queue and the wire agree).
            let again = try? Change(json: JSON.parse(change.json.bytes))
            precondition(again == change, "a change does not round-trip")
            // A record text kept as it came is the one the server stores: it must be the record's own.
            if let text = item.recordText {
                precondition(text == JSON.object(change.record).text, "a kept record text is not the record's canonical text")
            }
        } else {
            precondition(item.recordText == nil, "an invalid change kept a record text")
        }
    }
}

@main
struct Entry {
    static func main() {
        FuzzEntry.main(runOne)
    }
}
