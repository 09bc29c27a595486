import CFuzzSupport
import TNotesCore

// libFuzzer target over the server's push body decoding (`PushRequest.decode`, which the server's push
// route runs): no input may crash or hang; every change is either a valid Change or a FieldError.
//
// Fuzz:   swift build --scratch-path .build-fuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING \
//           --product tnotes-fuzz-push && .build-fuzz/debug/tnotes-fuzz-push -max_total_time=60 CORPUS_DIR
// Replay: tnotes-fuzz-push FILE…

func runOne(_ bytes: [UInt8]) {
    guard let request = try? PushRequest.decode(bytes: bytes) else { return }
    for item in request.items {
        if case .success(let change) = item.change {
            // What decodes must survive its own round trip unchanged (the queue and the wire agree).
            let again = try? Change(json: JSON.parse(change.json.bytes))
            precondition(again == change, "a change does not round-trip")
        }
    }
}

@main
struct Entry {
    static func main() {
        #if FUZZING
        // libFuzzer drives: SwiftPM keeps this main, so libFuzzer is entered through LLVMFuzzerRunDriver.
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            runOne(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
            return 0
        })
        #else
        replay()
        #endif
    }

    static func replay() {
        var count = 0
        for path in CommandLine.arguments.dropFirst() {
            guard let f = fopen(path, "rb") else { continue }
            var out = [UInt8]()
            var buf = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = fread(&buf, 1, buf.count, f)
                if n <= 0 { break }
                out += buf[0..<n]
            }
            fclose(f)
            runOne(out)
            count += 1
        }
        print("replayed \(count) input(s) without a crash")
    }
}


#if canImport(Glibc)
import Glibc
#endif
