import Foundation

/// An HTTP/1.x request or response head.
struct ProxyHTTPHead {
    var startLine: String
    var headers: [(String, String)]

    init?(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        var lines = text.components(separatedBy: "\r\n")
        while lines.last == "" { lines.removeLast() }
        guard let first = lines.first, !first.isEmpty else { return nil }
        startLine = first
        headers = []
        for l in lines.dropFirst() {
            guard let colon = l.firstIndex(of: ":") else { continue }
            headers.append((String(l[..<colon]), l[l.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
    }

    var parts: [String] { startLine.split(separator: " ", maxSplits: 2).map(String.init) }
    var isRequest: Bool { !startLine.hasPrefix("HTTP/") && parts.count == 3 }
    var method: String { parts.first ?? "" }
    var target: String {
        get { parts.count > 1 ? parts[1] : "" }
        set { if parts.count == 3 { startLine = "\(parts[0]) \(newValue) \(parts[2])" } }
    }
    var status: Int { startLine.hasPrefix("HTTP/") && parts.count > 1 ? Int(parts[1]) ?? 0 : 0 }

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    var headerMap: [String: String] {
        var m = [String: String]()
        for (k, v) in headers { m[k.lowercased()] = v }
        return m
    }

    mutating func setHeader(_ name: String, _ value: String) {
        headers.removeAll { $0.0.lowercased() == name.lowercased() }
        headers.append((name, value))
    }

    var bytes: [UInt8] {
        var s = startLine + "\r\n"
        for (k, v) in headers { s += "\(k): \(v)\r\n" }
        s += "\r\n"
        return Array(s.utf8)
    }
}
