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
