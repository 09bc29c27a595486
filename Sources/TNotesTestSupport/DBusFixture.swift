import Foundation

/// Private D-Bus buses for a test (contract §8.4's desktop tests): a "system" and a "session" dbus-daemon of
/// its own on sockets in a temp dir (never the machine's buses), with python-dbusmock's templates as the
/// desktop's services (NetworkManager, UPower, logind, a notification server). A daemon started with
/// `environment` talks to them. Everything stops with the fixture.
public final class DBusFixture: @unchecked Sendable {
    public enum Bus: String, Sendable { case system, session }

    public static let dbusDaemon = "/usr/bin/dbus-daemon"
    public static let busctl = "/usr/bin/busctl"
    /// The python of scripts/dbusmock/install.sh's venv (`$TNOTES_DBUSMOCK_PYTHON` overrides).
    public static var python: String {
        ProcessInfo.processInfo.environment["TNOTES_DBUSMOCK_PYTHON"] ?? "\(Binaries.packageBuildDirectory)/dbusmock/bin/python"
    }
    /// Why the desktop tests cannot run here (nil: they can).
    public static let unavailable: String? = {
        for tool in [dbusDaemon, busctl] where !FileManager.default.isExecutableFile(atPath: tool) {
            return "needs \(tool) (apt-get install dbus-daemon systemd)"
        }
        guard FileManager.default.isExecutableFile(atPath: python) else {
            return "needs python-dbusmock in .build/dbusmock (scripts/dbusmock/install.sh)"
        }
        return nil
    }()

    public let dir: TempDirectory
    private var buses: [Bus: SpawnedProcess] = [:]
    private var mocks: [SpawnedProcess] = []

    public init() throws {
        dir = TempDirectory("tn-dbus")
        do {
            try startBus(.system)
            try startBus(.session)
        } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    public func socket(_ bus: Bus) -> String { dir.file("\(bus.rawValue)_bus_socket") }
    public func address(_ bus: Bus) -> String { "unix:path=\(socket(bus))" }

    /// For a daemon (or a tool) that should use these buses.
    public var environment: [String: String] {
        ["DBUS_SYSTEM_BUS_ADDRESS": address(.system), "DBUS_SESSION_BUS_ADDRESS": address(.session)]
    }

    /// Starts (or starts again, on the same socket) one bus: a session-type dbus-daemon anyone may own names on.
    public func startBus(_ bus: Bus) throws {
        let config = try dir.write("\(bus.rawValue).conf", """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(socket(bus))</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """)
        unlink(socket(bus))
        let p = try SpawnedProcess(Self.dbusDaemon, ["--config-file=\(config)", "--nofork", "--nopidfile"],
                                   environment: ["PATH": "/usr/bin:/bin"], logFile: dir.file("\(bus.rawValue)-bus.log"))
        buses[bus] = p
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if (try? ProcessRunner.run(Self.busctl, ["--\(bus == .system ? "system" : "user")", "list", "--no-pager"],
                                       environment: environment, timeout: 5))?.status == 0 { return }
            if !p.isRunning { break }
            usleep(20_000)
        }
        throw HarnessError("the private \(bus.rawValue) bus did not start: \(p.log)")
    }

    /// Stops one bus (its mocks leave with it: python-dbusmock exits when its bus goes).
    public func stopBus(_ bus: Bus) {
        buses[bus]?.stop()
        buses[bus] = nil
    }

    /// Starts a python-dbusmock template (`networkmanager`, `upower`, `logind`, `notification_daemon`) on `bus`,
    /// with its template parameters as JSON, and waits until it owns `name`.
    public func startMock(_ template: String, on bus: Bus, owning name: String, parameters: String? = nil) throws {
        var arguments = ["-m", "dbusmock", "--\(bus.rawValue)", "--template", template]
        if let parameters { arguments += ["-p", parameters] }
        var env = environment
        env["PATH"] = "/usr/bin:/bin"
        let p = try SpawnedProcess(Self.python, arguments, environment: env, logFile: dir.file("\(template).log"))
        mocks.append(p)
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let r = try? call(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner", ["s", name]),
               r.contains("true") { return }
            if !p.isRunning { break }
            usleep(50_000)
        }
        throw HarnessError("python-dbusmock's \(template) did not start on the \(bus.rawValue) bus: \(p.log)")
    }

    /// The desktop's usual services: NetworkManager, UPower and logind on the system bus, a notification server
    /// on the session bus.
    public func startDesktop(onBattery: Bool = false) throws {
        try startNetworkManager()
        try startMock("upower", on: .system, owning: "org.freedesktop.UPower", parameters: "{\"OnBattery\": \(onBattery)}")
        try startMock("logind", on: .system, owning: "org.freedesktop.login1")
        try startMock("notification_daemon", on: .session, owning: "org.freedesktop.Notifications")
    }

    /// NetworkManager, with its global Metered (0 unknown, 1 yes, 2 no, 3 guess-yes, 4 guess-no).
    public func startNetworkManager(metered: UInt32 = 0) throws {
        try startMock("networkmanager", on: .system, owning: "org.freedesktop.NetworkManager")
        // The template has no Metered property: add it, so that it can be read and changed. AddProperty announces
        // nothing, and a follower that read the properties when the name appeared (before this call) would never
        // see it: the value is announced too, as a NetworkManager that had it from the start would have shown it.
        try call(.system, "org.freedesktop.NetworkManager", "/org/freedesktop/NetworkManager", "org.freedesktop.DBus.Mock",
                 "AddProperty", ["ssv", "org.freedesktop.NetworkManager", "Metered", "u", "\(metered)"])
        try setMetered(metered)
    }

    /// Forgets the Notify calls the mock notification server has seen.
    public func clearNotifications() throws {
        try call(.session, "org.freedesktop.Notifications", "/org/freedesktop/Notifications", "org.freedesktop.DBus.Mock", "ClearCalls")
    }

    /// A method call through busctl (`signatureAndArguments`: busctl's form, e.g. ["ss", "a", "b"]); its output.
    @discardableResult
    public func call(_ bus: Bus, _ destination: String, _ path: String, _ interface: String, _ method: String,
                     _ signatureAndArguments: [String] = [], json: Bool = false) throws -> String {
        var arguments = ["--\(bus == .system ? "system" : "user")", "--timeout=5"]
        if json { arguments.append("--json=short") }
        arguments += ["call", destination, path, interface, method, "--"] + signatureAndArguments
        let r = try ProcessRunner.run(Self.busctl, arguments, environment: environment, timeout: 15)
        guard r.status == 0 else { throw HarnessError("busctl \(arguments.joined(separator: " ")): \(r.stderr)") }
        return r.stdout
    }

    /// NetworkManager's Metered (1 yes, 2 no, 3 guess-yes, 4 guess-no), announced with PropertiesChanged.
    public func setMetered(_ value: UInt32) throws {
        try call(.system, "org.freedesktop.NetworkManager", "/org/freedesktop/NetworkManager", "org.freedesktop.DBus.Mock",
                 "UpdateProperties", ["sa{sv}", "org.freedesktop.NetworkManager", "1", "Metered", "u", "\(value)"])
    }

    /// UPower's OnBattery, announced with PropertiesChanged.
    public func setOnBattery(_ on: Bool) throws {
        try call(.system, "org.freedesktop.UPower", "/org/freedesktop/UPower", "org.freedesktop.DBus.Mock",
                 "UpdateProperties", ["sa{sv}", "org.freedesktop.UPower", "1", "OnBattery", "b", "\(on)"])
    }

    /// logind's PrepareForSleep(sleeping).
    public func prepareForSleep(_ sleeping: Bool) throws {
        try call(.system, "org.freedesktop.login1", "/org/freedesktop/login1", "org.freedesktop.DBus.Mock",
                 "EmitSignal", ["sssav", "org.freedesktop.login1.Manager", "PrepareForSleep", "b", "1", "b", "\(sleeping)"])
    }

    /// The sleep inhibitors logind holds: (who, mode) of each.
    public func sleepInhibitors() throws -> [(who: String, mode: String)] {
        let out = try call(.system, "org.freedesktop.login1", "/org/freedesktop/login1", "org.freedesktop.login1.Manager",
                           "ListInhibitors", json: true)
        // busctl's JSON: {"type": "a(ssssuu)", "data": [<the reply's one argument>]}.
        guard let object = try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any],
              let rows = (object["data"] as? [Any])?.first as? [[Any]] else { throw HarnessError("ListInhibitors: \(out)") }
        // a(ssssuu): what, who, why, mode, uid, pid.
        return rows.compactMap { row in
            guard row.count >= 4, let what = row[0] as? String, what.contains("sleep"),
                  let who = row[1] as? String, let mode = row[3] as? String else { return nil }
            return (who, mode)
        }
    }

    /// What the mock notification server was sent: (app, summary, body, urgency) of each Notify, oldest first.
    public func notifications() throws -> [(app: String, summary: String, body: String, urgency: Int?)] {
        let out = try call(.session, "org.freedesktop.Notifications", "/org/freedesktop/Notifications", "org.freedesktop.DBus.Mock",
                           "GetMethodCalls", ["s", "Notify"], json: true)
        // a(tav): each call's time and its arguments as variants {type, data}.
        guard let object = try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any],
              let calls = (object["data"] as? [Any])?.first as? [[Any]] else { throw HarnessError("GetMethodCalls: \(out)") }
        return try calls.map { call in
            guard call.count == 2, let args = call[1] as? [[String: Any]], args.count == 8 else {
                throw HarnessError("a Notify call of an unexpected shape: \(call)")
            }
            func value(_ i: Int) -> Any? { args[i]["data"] }
            let hints = value(6) as? [String: Any]
            let urgency = (hints?["urgency"] as? [String: Any])?["data"] as? Int
            return (value(0) as? String ?? "", value(3) as? String ?? "", value(4) as? String ?? "", urgency)
        }
    }

    public func stop() {
        for m in mocks { m.stop() }
        mocks = []
        for bus in Array(buses.keys) { stopBus(bus) }
    }
}
