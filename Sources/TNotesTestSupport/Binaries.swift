import Foundation

/// Finds the project's executables: beside the test bundle in the build folder (or `$TNOTES_BIN_DIR`).
public enum Binaries {
    public static var directory: String {
        if let d = ProcessInfo.processInfo.environment["TNOTES_BIN_DIR"], !d.isEmpty { return d }
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var dir = (exe as NSString).deletingLastPathComponent
        // On Linux the test runner is `<build>/debug/tnotesPackageTests.xctest`; on other layouts walk up.
        for _ in 0..<4 {
            if FileManager.default.isExecutableFile(atPath: "\(dir)/tnotesd") { return dir }
            dir = (dir as NSString).deletingLastPathComponent
        }
        return (exe as NSString).deletingLastPathComponent
    }

    public static func path(_ name: String) -> String { "\(directory)/\(name)" }
}
