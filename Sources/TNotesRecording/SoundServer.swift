import CPulseAudio

/// A sound server could not be used: not there, or it refused (contract §8.2: -32005 naming it).
public struct SoundServerError: Error, Sendable, CustomStringConvertible {
    /// The server as the user named it (`PULSE_SERVER`), or "the default PulseAudio server".
    public let server: String
    public let reason: String
    public var description: String { "sound server \(server): \(reason)" }
}

/// One capture source of the sound server (a microphone, a sink's monitor).
public struct AudioSource: Sendable, Equatable {
    public let name: String
    public let description: String
    public let isDefault: Bool
    public let isMonitor: Bool
}

/// The PulseAudio server the daemon talks to: `PULSE_SERVER` when set (PipeWire's pulse server on current
/// desktops answers the same protocol), else libpulse's own lookup (the session's socket).
public struct SoundServer: Sendable {
    /// libpulse's server string; nil: its default lookup.
    public let address: String?

    public init(address: String?) {
        self.address = address.flatMap { $0.isEmpty ? nil : $0 }
    }

    public init(environment: [String: String]) {
        self.init(address: environment["PULSE_SERVER"])
    }

    /// How errors name it.
    public var name: String { address ?? "the default PulseAudio server" }

    /// Loads libpulse on first use.
    func load() throws(SoundServerError) {
        guard tn_pulse_load() == 1 else {
            throw SoundServerError(server: name, reason: "libpulse is not installed (\(String(cString: tn_pulse_load_error())))")
        }
    }

    /// The sources, the default one marked. Blocks (up to 5 s): call it off the cooperative pool.
    public func sources() throws(SoundServerError) -> [AudioSource] {
        try load()
        final class Found {
            var items: [(String, String, Bool)] = []
        }
        let found = Found()
        var defaultName = [CChar](repeating: 0, count: 512)
        var error = [CChar](repeating: 0, count: 512)
        let rc = withExtendedLifetime(found) {
            tn_pulse_list_sources(address, { context, name, description, isMonitor in
                let found = Unmanaged<Found>.fromOpaque(context!).takeUnretainedValue()
                found.items.append((String(cString: name!), String(cString: description!), isMonitor != 0))
            }, Unmanaged.passUnretained(found).toOpaque(), &defaultName, defaultName.count, 5000, &error, error.count)
        }
        guard rc == 0 else { throw SoundServerError(server: name, reason: text(error)) }
        let chosen = text(defaultName)
        return found.items.map { AudioSource(name: $0.0, description: $0.1, isDefault: $0.0 == chosen, isMonitor: $0.2) }
    }
}

/// A NUL-terminated C string that C wrote into a Swift buffer.
func text(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
