/// What the desktop's system services say about the machine (contract §8.4), as the daemon adapts to it.
/// A service that is not there says nothing: the values then stay at their "as usual" defaults.
public struct DesktopState: Sendable, Equatable {
    /// NetworkManager's global `Metered` is yes or guess-yes (libnm: treat a guess-yes like a yes).
    public var metered = false
    /// UPower's `OnBattery`.
    public var onBattery = false
    /// logind said PrepareForSleep(true), and not yet PrepareForSleep(false).
    public var sleeping = false
    /// How many times the machine woke up (PrepareForSleep(false)) since the daemon started.
    public var resumes = 0

    public init(metered: Bool = false, onBattery: Bool = false, sleeping: Bool = false, resumes: Int = 0) {
        self.metered = metered
        self.onBattery = onBattery
        self.sleeping = sleeping
        self.resumes = resumes
    }

    /// NetworkManager's NMMetered value: 1 yes, 3 guess-yes; 0 unknown, 2 no, 4 guess-no, -1 no NetworkManager.
    static func isMetered(_ value: Int32) -> Bool { value == 1 || value == 3 }
}

/// A desktop notification (org.freedesktop.Notifications.Notify).
public struct DesktopNotification: Sendable, Equatable {
    public enum Urgency: Int32, Sendable { case low = 0, normal = 1, critical = 2 }

    public var summary: String
    public var body: String
    public var urgency: Urgency

    public init(summary: String, body: String, urgency: Urgency = .normal) {
        self.summary = summary
        self.body = body
        self.urgency = urgency
    }
}
