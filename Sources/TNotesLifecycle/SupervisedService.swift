import Logging
import ServiceLifecycle
import TNotesCore

/// A service of a process's group (tnotesd's, tnotes-server's), run under a name so that its failure is told as one log line naming it
/// and ends the process non-zero.
///
/// ServiceGroup logs a service's error only at debug level and rethrows it bare; under
/// `Restart=on-failure` the process must exit non-zero, and whoever reads the journal must see which
/// part died and why. A service that returns while the group is not stopping has failed too (a socket
/// server that stopped accepting would otherwise leave a daemon that answers nobody).
public struct SupervisedService: Service, CustomStringConvertible {
    public let name: String
    public let service: any Service
    public let logger: Logger

    public init(name: String, service: any Service, logger: Logger) {
        self.name = name
        self.service = service
        self.logger = logger
    }

    public var description: String { name }

    public func run() async throws {
        do {
            if FaultInjection.failingService == name {
                // Once the daemon is up and serving, as a real failure would come.
                try await Task.sleep(for: .milliseconds(300))
                throw FaultInjection.InjectedFailure(service: name)
            }
            try await service.run()
        } catch {
            if Task.isShuttingDownGracefully || Task.isCancelled, error is CancellationError { throw error }
            logger.error("service failed", metadata: ["service": "\(name)", "error": "\(error)"])
            throw ServiceFailure(service: name, reason: "\(error)", underlying: error)
        }
        if !Task.isShuttingDownGracefully && !Task.isCancelled {
            logger.error("service failed", metadata: ["service": "\(name)", "error": "stopped unexpectedly"])
            throw ServiceFailure(service: name, reason: "stopped unexpectedly")
        }
    }
}

/// The error a process's `run` ends with when one of its services failed.
public struct ServiceFailure: Error, CustomStringConvertible {
    public let service: String
    public let reason: String
    /// The error the service threw; nil when it stopped unexpectedly.
    public var underlying: (any Error)? = nil
    public var description: String { "service \(service) failed: \(reason)" }
}

/// A way for the test suite to make one named service fail in a real daemon or server process, to prove that a failure
/// stops the others gracefully and ends the process non-zero: `TNOTES_FAIL_SERVICE=<name>` (names as in
/// the `service failed` log line: `socket-server`, `systemd`, `sync-engine`, `network-monitor`, `http`,
/// `database-client`, ...).
/// Unset in production; it changes nothing else.
public enum FaultInjection {
    public static let failingService: String? = ProcessEnvironment.current["TNOTES_FAIL_SERVICE"]

    struct InjectedFailure: Error, CustomStringConvertible {
        let service: String
        var description: String { "injected failure (TNOTES_FAIL_SERVICE=\(service))" }
    }
}
