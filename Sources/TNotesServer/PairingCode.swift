import TNotesCore

/// A pairing code (contract §8.6): what a person reads off one screen and types on another. Eight characters
/// of Crockford's base32 (no I, L, O or U), shown as `ABCD-EFGH`: 40 bits, used once and within 15 minutes;
/// redeeming is rate limited per address, so guessing one live code takes years. Only its hash is stored.
public enum PairingCode {
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
    public static let lifetimeMillis: Int64 = 15 * 60_000

    public static func make() -> String {
        var rng = SystemRandomNumberGenerator()
        let chars = (0..<8).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &rng)] }
        return String(decoding: chars[0..<4], as: UTF8.self) + "-" + String(decoding: chars[4...], as: UTF8.self)
    }

    /// The code as it is hashed: upper case, without separators, with the letters people mistake for digits
    /// read as those digits. Nil for anything that cannot be a code.
    public static func normalize(_ typed: String) -> String? {
        var out = [UInt8]()
        for b in typed.utf8 {
            switch b {
            case UInt8(ascii: "-"), UInt8(ascii: " "): continue
            case UInt8(ascii: "a")...UInt8(ascii: "z"): out.append(map(b - 32))
            default: out.append(map(b))
            }
            if out.count > 8 { return nil }
        }
        guard out.count == 8, out.allSatisfy({ alphabet.contains($0) }) else { return nil }
        return String(decoding: out, as: UTF8.self)
    }

    private static func map(_ b: UInt8) -> UInt8 {
        switch b {
        case UInt8(ascii: "O"): UInt8(ascii: "0")
        case UInt8(ascii: "I"), UInt8(ascii: "L"): UInt8(ascii: "1")
        default: b
        }
    }

    /// Codes that expired before this (a day before `now`) are deleted; a later one is still told "expired".
    static func forgottenBefore(_ now: String) -> String {
        Timestamp.format(millis: (Timestamp.parse(now) ?? 0) - 86_400_000)
    }

    /// The stored form: a hash, as for tokens (a database read leaks no live code).
    public static func hash(normalized code: String) -> String { TokenAuth.hash("pair:" + code) }
}
