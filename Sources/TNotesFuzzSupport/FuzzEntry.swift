import CFuzzSupport

#if canImport(Glibc)
import Glibc
#endif

/// The shared entry of the fuzz targets: under `-DFUZZING` (scripts/fuzz.sh) libFuzzer drives `body`;
/// in a normal build the program replays the files named on its command line through the same `body`.
public enum FuzzEntry {
    public static func main(_ body: @escaping ([UInt8]) -> Void) -> Never {
        #if FUZZING
        nonisolated(unsafe) var argc = CommandLine.argc
        nonisolated(unsafe) var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        Self.body = body
        exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            FuzzEntry.body?(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
            return 0
        })
        #else
        var count = 0
        for path in CommandLine.arguments.dropFirst() {
            guard let bytes = readAll(path) else { continue }
            body(bytes)
            count += 1
        }
        print("replayed \(count) input(s) without a crash")
        exit(0)
        #endif
    }

    nonisolated(unsafe) static var body: (([UInt8]) -> Void)?

    static func readAll(_ path: String) -> [UInt8]? {
        guard let f = fopen(path, "rb") else { return nil }
        defer { fclose(f) }
        var out = [UInt8]()
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&buf, 1, buf.count, f)
            if n <= 0 { break }
            out += buf[0..<n]
        }
        return out
    }
}
