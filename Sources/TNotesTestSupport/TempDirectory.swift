import Foundation

/// A directory under /tmp that is removed when the value goes away. Short paths on purpose: a Unix
/// socket path must fit in 108 bytes.
/// Unchecked because: its only state is the path, fixed in `init`; removal happens once, in `deinit`.
public final class TempDirectory: @unchecked Sendable {
    public let path: String

    public init(_ prefix: String = "tn") {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        let p = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(p != nil, "mkdtemp failed")
        path = String(cString: p!)
    }

    public func file(_ name: String) -> String { "\(path)/\(name)" }

    public func write(_ name: String, _ text: String) throws -> String {
        let p = file(name)
        try FileManager.default.createDirectory(atPath: (p as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try text.write(toFile: p, atomically: true, encoding: .utf8)
        return p
    }

    deinit {
        if ProcessInfo.processInfo.environment["TNOTES_KEEP_TMP"] == nil {
            try? FileManager.default.removeItem(atPath: path)
        }
    }
}
