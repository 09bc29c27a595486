/// Public ids of published pages (contract §6.5): a readable slug plus 64 random bits, so a page's address
/// says what it is and cannot be guessed from another one.
public enum PublicId {
    public static let pattern = "^([a-z0-9]+(-[a-z0-9]+)*-)?[0-9a-f]{16}$"

    /// A new id for `title`: its slug (ASCII letters and digits, at most 48 characters) and 16 hex digits.
    public static func make(title: String) -> String {
        var g = SystemRandomNumberGenerator()
        let random = String(g.next() as UInt64, radix: 16)
        let hex = String(repeating: "0", count: 16 - random.count) + random
        let s = slug(title)
        return s.isEmpty ? hex : "\(s)-\(hex)"
    }

    /// Lowercase ASCII letters and digits, other runs of characters as one dash; accents dropped.
    public static func slug(_ text: String) -> String {
        var out = ""
        var dash = false
        for scalar in text.lowercased().decomposedStringWithCanonicalMappingIfAvailable.unicodeScalars {
            if ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) {
                if dash && !out.isEmpty { out.append("-") }
                out.unicodeScalars.append(scalar)
                dash = false
            } else if scalar.properties.generalCategory != .nonspacingMark {
                dash = true
            }
            if out.count >= 48 { break }
        }
        return out
    }

    public static func isValid(_ s: String) -> Bool {
        let parts = s.split(separator: "-", omittingEmptySubsequences: false)
        guard let last = parts.last, last.count == 16, last.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else { return false }
        guard s.count <= 80 else { return false }
        return parts.dropLast().allSatisfy { p in !p.isEmpty && p.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) } }
    }
}

extension String {
    /// Canonical decomposition (é → e + ◌́), so the slug keeps the base letters.
    var decomposedStringWithCanonicalMappingIfAvailable: String {
        String(String.UnicodeScalarView(unicodeScalars.flatMap { Self.decompose($0) }))
    }

    private static func decompose(_ s: Unicode.Scalar) -> [Unicode.Scalar] {
        // Swift's stdlib exposes no NFD; the Latin-1 and Latin Extended-A letters people type are mapped
        // through their names' base letter ("LATIN SMALL LETTER E WITH ACUTE" → e).
        guard s.value >= 0xC0, s.value < 0x250, let name = s.properties.name else { return [s] }
        let words = name.split(separator: " ")
        guard let i = words.firstIndex(of: "LETTER"), i + 2 < words.count, words[i + 2] == "WITH", words[i + 1].count == 1,
              let c = words[i + 1].lowercased().unicodeScalars.first
        else { return [s] }
        return [c]
    }
}
