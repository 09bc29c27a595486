import TOMLKit

public struct ConfigError: Error, CustomStringConvertible, Sendable {
    public init(file: String, key: String, problem: String) {
        self.file = file
        self.key = key
        self.problem = problem
    }

    public let file: String
    public let key: String
    public let problem: String
    public var description: String { "\(file): \(key): \(problem)" }
}

/// Reads keys of one TOML table, remembering which were read so that `finish` can refuse the rest.
public struct TableReader {
    let table: TOMLTable
    let prefix: String
    let file: String
    let expandPath: @Sendable (String) -> String
    var seen: Set<String> = []

    public init(table: TOMLTable, prefix: String, file: String, expandPath: @escaping @Sendable (String) -> String = { $0 }) {
        self.table = table
        self.prefix = prefix
        self.file = file
        self.expandPath = expandPath
    }

    /// Parses TOML text; a syntax error names the line and column.
    public static func parse(_ text: String, file: String) throws(ConfigError) -> TOMLTable {
        do {
            return try TOMLTable(string: text)
        } catch let e as TOMLParseError {
            throw ConfigError(file: file, key: "(syntax)",
                              problem: "line \(e.source.begin.line), column \(e.source.begin.column): \(e.description)")
        } catch {
            throw ConfigError(file: file, key: "(syntax)", problem: "\(error)")
        }
    }

    public func fail(_ key: String, _ problem: String) -> ConfigError {
        ConfigError(file: file, key: prefix + key, problem: problem)
    }

    public mutating func value(_ key: String) -> (any TOMLValueConvertible)? {
        seen.insert(key)
        return table[key]
    }

    public mutating func string(_ key: String) throws(ConfigError) -> String? {
        guard let v = value(key) else { return nil }
        guard v.type == .string, let s = v.string else { throw fail(key, "must be a string, not \(v.type)") }
        return s
    }

    public mutating func path(_ key: String) throws(ConfigError) -> String? {
        guard let s = try string(key) else { return nil }
        guard !s.isEmpty else { throw fail(key, "must not be empty") }
        return expandPath(s)
    }

    public mutating func int(_ key: String, min: Int, max: Int) throws(ConfigError) -> Int? {
        guard let v = value(key) else { return nil }
        guard v.type == .int, let i = v.int else { throw fail(key, "must be an integer, not \(v.type)") }
        guard i >= min && i <= max else { throw fail(key, "must be between \(min) and \(max) (got \(i))") }
        return i
    }

    public mutating func bool(_ key: String) throws(ConfigError) -> Bool? {
        guard let v = value(key) else { return nil }
        guard v.type == .bool, let b = v.bool else { throw fail(key, "must be true or false, not \(v.type)") }
        return b
    }

    public mutating func seconds(_ key: String, min: Double) throws(ConfigError) -> Double? {
        guard let v = value(key) else { return nil }
        let d: Double
        if v.type == .int, let i = v.int {
            d = Double(i)
        } else if v.type == .double, let x = v.double {
            d = x
        } else {
            throw fail(key, "must be a number of seconds, not \(v.type)")
        }
        guard d.isFinite, d >= min else { throw fail(key, "must be at least \(min) seconds (got \(d))") }
        return d
    }

    /// A size in bytes: an integer, or a string with a unit, "500MB" or "2GiB" (kB, MB, GB, TB are powers of
    /// 1000; K/KiB, M/MiB, G/GiB, T/TiB of 1024, as systemd reads them).
    public mutating func bytes(_ key: String) throws(ConfigError) -> Int64? {
        guard let v = value(key) else { return nil }
        if v.type == .int, let i = v.int {
            guard i >= 0 else { throw fail(key, "must not be negative (got \(i))") }
            return Int64(i)
        }
        guard v.type == .string, let text = v.string, let n = Self.parseBytes(text) else {
            throw fail(key, "must be a number of bytes, or a size such as \"500MB\" or \"2GiB\"")
        }
        return n
    }

    static func parseBytes(_ text: String) -> Int64? {
        let trimmed = text.filter { $0 != " " && $0 != "_" }
        let digits = trimmed.prefix { $0.isNumber || $0 == "." }
        guard let number = Double(digits), number.isFinite, number >= 0 else { return nil }
        let units: [String: Double] = ["": 1, "b": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
                                       "k": 1024, "kib": 1024, "m": 1_048_576, "mib": 1_048_576,
                                       "g": 1_073_741_824, "gib": 1_073_741_824, "t": 1_099_511_627_776, "tib": 1_099_511_627_776]
        guard let unit = units[trimmed.dropFirst(digits.count).lowercased()] else { return nil }
        let bytes = (number * unit).rounded()
        // 2^63 itself does not fit: refuse rather than trap in the conversion.
        guard bytes < 9.2e18 else { return nil }
        return Int64(bytes)
    }

    /// A command line as an array of strings (never a shell string): at least the program.
    public mutating func argv(_ key: String) throws(ConfigError) -> [String]? {
        guard let v = value(key) else { return nil }
        guard v.type == .array, let a = v.array else {
            throw fail(key, "must be an array of strings (an argv, e.g. [\"whisper-cli\", \"-m\", \"model.bin\"]), not \(v.type)")
        }
        var out: [String] = []
        for i in 0..<a.count {
            guard a[i].type == .string, let s = a[i].string else { throw fail(key, "element \(i) must be a string") }
            out.append(s)
        }
        guard let first = out.first, !first.isEmpty else { throw fail(key, "must name a program first") }
        return out
    }

    public mutating func table(_ key: String) throws(ConfigError) -> TOMLTable? {
        guard let v = value(key) else { return nil }
        guard v.type == .table, let t = v.table else { throw fail(key, "must be a table ([\(prefix + key)]), not \(v.type)") }
        return t
    }

    public func finish() throws(ConfigError) {
        for key in table.keys.sorted() where !seen.contains(key) {
            throw fail(key, "unknown key")
        }
    }
}
