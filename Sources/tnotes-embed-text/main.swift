#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The build tool behind the EmbedOpenAPI plugin (Plugins/EmbedOpenAPI):
//
//   tnotes-embed-text INPUT OUTPUT TYPE MEMBER
//
// writes OUTPUT, a Swift source declaring `extension TYPE { static let MEMBER: String }` whose value is INPUT's
// text byte for byte. The text is compiled into the binary instead of read at run time: the server ships as a
// static-runtime release build in a Debian package, where `Bundle.module` has no resource bundle to find (it
// traps). No Foundation: this runs in every build, and linking Foundation would be most of its build time.

func fail(_ message: String) -> Never {
    let line = Array("tnotes-embed-text: \(message)\n".utf8)
    _ = write(2, line, line.count)
    exit(1)
}

func readAll(_ path: String) -> [UInt8] {
    guard let file = fopen(path, "rb") else { fail("cannot open \(path): \(String(cString: strerror(errno)))") }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = fread(&chunk, 1, chunk.count, file)
        bytes += chunk[..<n]
        if n < chunk.count {
            if ferror(file) != 0 { fail("cannot read \(path)") }
            return bytes
        }
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 5 else { fail("usage: tnotes-embed-text INPUT OUTPUT TYPE MEMBER") }
let (input, output, type, member) = (arguments[1], arguments[2], arguments[3], arguments[4])
let bytes = readAll(input)
// Decoding repairs invalid UTF-8 (U+FFFD): the text is the file only when it encodes back to the same bytes.
let text = String(decoding: bytes, as: UTF8.self)
guard Array(text.utf8) == bytes else { fail("\(input) is not UTF-8") }

// A raw string with one more `#` than the longest run of `#` in the text: no `"""#…` in it can end the literal
// and no `\#…` in it is an escape, so every character but the few below stands for itself.
var longestRun = 0, run = 0
for byte in bytes {
    run = byte == UInt8(ascii: "#") ? run + 1 : 0
    longestRun = max(longestRun, run)
}
let hashes = String(repeating: "#", count: longestRun + 1)

// What a multi-line literal cannot hold as itself: a carriage return (the compiler reads CR LF as LF) and the
// other control characters (refused in source) are written as escapes, which give the same scalar back.
var literal = ""
literal.reserveCapacity(bytes.count + 64)
for scalar in text.unicodeScalars {
    switch scalar.value {
    case 0x0A, 0x09: literal.unicodeScalars.append(scalar)
    case 0x00...0x1F, 0x7F: literal += "\\\(hashes)u{\(String(scalar.value, radix: 16))}"
    default: literal.unicodeScalars.append(scalar)
    }
}

let name = input.split(separator: "/").last.map(String.init) ?? input
// The closing delimiter at column 0 strips no indentation; the newline before it is not part of the string, so
// the text's own last newline (if it has one) stays.
let source = """
    // Generated at build time by tnotes-embed-text (Plugins/EmbedOpenAPI) from \(name): edit that file, not this.
    extension \(type) {
        /// The text of \(name), byte for byte.
        static let \(member) = \(hashes)\"\"\"
    \(literal)
    \"\"\"\(hashes)
    }

    """
// An output that already holds this text is left as it is (its time too): the compiler then has nothing new to
// compile, whatever made the build run this command again.
if let existing = fopen(output, "rb") {
    fclose(existing)
    if readAll(output) == Array(source.utf8) { exit(0) }
}
guard let file = fopen(output, "wb") else { fail("cannot create \(output): \(String(cString: strerror(errno)))") }
let written = source.utf8.withContiguousStorageIfAvailable { fwrite($0.baseAddress, 1, $0.count, file) }
    ?? Array(source.utf8).withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, file) }
guard written == source.utf8.count, fclose(file) == 0 else { fail("cannot write \(output)") }
