/// RFC 3339 times as the contract wants them: UTC, milliseconds, `2025-11-06T10:00:00.000Z`.
/// The canonical text has a fixed width, so comparing two canonical strings compares the times.
public enum Timestamp {
    /// Milliseconds since the Unix epoch → canonical text.
    public static func format(millis: Int64) -> String {
        var ms = millis
        var days = ms / 86_400_000
        ms -= days * 86_400_000
        if ms < 0 { ms += 86_400_000; days -= 1 }
        let (y, m, d) = civil(fromDays: days)
        let h = ms / 3_600_000, mi = (ms / 60_000) % 60, s = (ms / 1000) % 60, f = ms % 1000
        guard (0...9999).contains(y) else {
            // Outside the fixed-width range (never canonical): the general path.
            return pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2) + "T" + pad(h, 2) + ":" + pad(mi, 2) + ":" + pad(s, 2)
                + "." + pad(f, 3) + "Z"
        }
        // One 24-byte buffer, no intermediate strings: this runs for every record written or checked.
        return String(unsafeUninitializedCapacity: 24) { out in
            func put(_ v: Int64, _ width: Int, at start: Int) {
                var v = v
                for k in stride(from: start + width - 1, through: start, by: -1) {
                    out[k] = UInt8(48 + v % 10)
                    v /= 10
                }
            }
            put(y, 4, at: 0); out[4] = 0x2D; put(m, 2, at: 5); out[7] = 0x2D; put(d, 2, at: 8); out[10] = 0x54
            put(h, 2, at: 11); out[13] = 0x3A; put(mi, 2, at: 14); out[16] = 0x3A; put(s, 2, at: 17); out[19] = 0x2E
            put(f, 3, at: 20); out[23] = 0x5A
            return 24
        }
    }

    /// Parses RFC 3339 (any offset, any fraction precision) or a plain `YYYY-MM-DD` date (midnight UTC).
    /// Returns milliseconds since the epoch, or nil when the text is not such a time.
    public static func parse(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { parse(bytes: $0) }
    }

    private static func parse(bytes b: UnsafeBufferPointer<UInt8>) -> Int64? {
        func num(_ from: Int, _ len: Int) -> Int64? {
            guard from + len <= b.count else { return nil }
            var v: Int64 = 0
            for i in from..<(from + len) {
                let c = b[i]
                guard c >= 48 && c <= 57 else { return nil }
                v = v * 10 + Int64(c - 48)
            }
            return v
        }
        guard b.count >= 10, let y = num(0, 4), b[4] == UInt8(ascii: "-"), let mo = num(5, 2),
            b[7] == UInt8(ascii: "-"), let d = num(8, 2)
        else { return nil }
        guard (1...12).contains(mo), d >= 1, d <= daysIn(month: mo, year: y) else { return nil }
        let dayMillis = days(fromCivil: y, mo, d) * 86_400_000
        if b.count == 10 { return dayMillis }
        guard b.count >= 20, b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: "t") || b[10] == UInt8(ascii: " "),
            let h = num(11, 2), b[13] == UInt8(ascii: ":"), let mi = num(14, 2), b[16] == UInt8(ascii: ":"),
            let s = num(17, 2), h < 24, mi < 60, s < 61
        else { return nil }
        var i = 19
        var fracMillis: Int64 = 0
        if b[i] == UInt8(ascii: ".") {
            i += 1
            var digits = 0
            while i < b.count, b[i] >= 48, b[i] <= 57 {
                if digits < 3 { fracMillis = fracMillis * 10 + Int64(b[i] - 48) }
                digits += 1
                i += 1
            }
            guard digits > 0 else { return nil }
            if digits == 1 { fracMillis *= 100 } else if digits == 2 { fracMillis *= 10 }
        }
        guard i < b.count else { return nil }
        var offsetMinutes: Int64 = 0
        if b[i] == UInt8(ascii: "Z") || b[i] == UInt8(ascii: "z") {
            i += 1
        } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
            let sign: Int64 = b[i] == UInt8(ascii: "+") ? 1 : -1
            guard let oh = num(i + 1, 2), i + 3 < b.count, b[i + 3] == UInt8(ascii: ":"), let om = num(i + 4, 2),
                oh < 24, om < 60
            else { return nil }
            offsetMinutes = sign * (oh * 60 + om)
            i += 6
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let secs = min(s, 59)
        return dayMillis + ((h * 60 + mi) * 60 + secs) * 1000 + fracMillis - offsetMinutes * 60_000
    }

    /// Normalizes any accepted form to the canonical text; nil when not a time.
    public static func canonical(_ text: String) -> String? {
        guard let ms = parse(text), ms >= 0, ms < 253_402_300_800_000 else { return nil }
        // Already canonical (the usual case: what this product writes): kept as it is, no new string.
        if isCanonicalShape(text) { return text }
        return format(millis: ms)
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ` with seconds below 60 (a leap second is clamped, so it is not canonical
    /// as written). Only called once `parse` has accepted the text, so digits and ranges are checked.
    private static func isCanonicalShape(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { b in
            b.count == 24 && b[10] == 0x54 && b[19] == 0x2E && b[23] == 0x5A && b[17] <= 0x35
        }
    }

    /// The wall clock in milliseconds since the epoch.
    public static func nowMillis() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    public static func now() -> String { format(millis: nowMillis()) }

    private static func pad(_ v: Int64, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    private static func isLeap(_ y: Int64) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    // Howard Hinnant's days_from_civil / civil_from_days.
    static func days(fromCivil y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
