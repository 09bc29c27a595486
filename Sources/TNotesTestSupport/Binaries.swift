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

    /// The package's .build directory: the tests run from .build/<triple>/debug, so it is the nearest folder above
    /// the binaries that holds Package.swift, plus /.build (where scripts/test.sh installs models and test tools).
    public static var packageBuildDirectory: String {
        var dir = directory
        for _ in 0..<6 {
            if FileManager.default.fileExists(atPath: "\(dir)/Package.swift") { return "\(dir)/.build" }
            dir = (dir as NSString).deletingLastPathComponent
        }
        return "\(directory)/.."
    }
}
