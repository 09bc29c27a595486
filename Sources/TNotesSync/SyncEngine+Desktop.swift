import Logging
import TNotesCore

/// The desktop's say in syncing (contract §8.4): metered connections, battery, sleep.
extension SyncEngine {
    /// The desktop's state (contract §8.4): on a metered connection audio transfers wait (records still sync)
    /// unless `audioOnMetered`; on battery the periodic interval doubles.
    public func desktop(metered: Bool, onBattery: Bool) {
        if metered != self.metered || onBattery != self.onBattery {
            logger.info("sync adapts to the desktop", metadata: ["metered": "\(metered)", "onBattery": "\(onBattery)",
                                                               "intervalSeconds": "\(periodicInterval)"])
        }
        self.metered = metered
        self.onBattery = onBattery
        audio?.hold(metered: metered && !settings.audioOnMetered)
    }

    /// The machine is about to sleep: no sync starts until it wakes (`resumed`), or until this says otherwise
    /// (the bus that said so is gone).
    public func sleeping(_ asleep: Bool) {
        let woke = self.asleep && !asleep
        self.asleep = asleep
        if woke && wanted { wake.yield() }
    }

    /// The machine woke up: sync now, whatever the backoff said (the network it failed on may be back).
    public func resumed() {
        asleep = false
        realtimeKick.signal()
        trigger(.resume)
    }

    /// The periodic sync's interval now: doubled on battery.
    var periodicInterval: Double { onBattery ? settings.interval * 2 : settings.interval }
}
