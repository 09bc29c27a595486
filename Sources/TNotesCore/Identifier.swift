import Crypto
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Record ids: lowercase UUID strings.
public enum Identifier {
    /// A new id: a time-ordered UUID (version 7, RFC 9562): 48 bits of Unix milliseconds, a 12-bit
    /// counter, 62 random bits. Why not v4: every table keyed by id (records, outbox op ids, the server's
    /// records, changes and applied ops) is a B-tree, and random keys land each insert on a random page, so a
    /// batch of 500 changes dirtied ~500 pages and the WAL grew with the file. Ids made in order append to
    /// the right edge of the tree instead. Still 74 random bits per millisecond: unique across devices.
    public static func make() -> String {
        let (ms, counter) = V7Clock.shared.next()
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in 0..<6 { bytes[i] = UInt8(truncatingIfNeeded: ms >> (40 - 8 * UInt64(i))) }
        bytes[6] = 0x70 | UInt8(truncatingIfNeeded: counter >> 8)
        bytes[7] = UInt8(truncatingIfNeeded: counter)
        let random = RandomPool.shared.next()
        for i in 0..<8 { bytes[8 + i] = UInt8(truncatingIfNeeded: random >> (56 - 8 * UInt64(i))) }
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return format(bytes)
    }

    /// The random half of new ids, from the kernel's CSPRNG (getrandom(2)) 512 ids' worth at a time.
    /// `SystemRandomNumberGenerator` makes one getrandom system call per value: 3.5 % of the store thread's
    /// time in a bulk import (two ids a note: the record's and its op's), most of it in the kernel (perf,
    /// 2026-11-30). The process never forks without exec (children are spawned), so no two processes share
    /// a pool.
    final class RandomPool: Sendable {
        static let shared = RandomPool()
        private static let words = 512
        private let state = Mutex<(words: [UInt64], used: Int)>(([], RandomPool.words))

        func next() -> UInt64 {
            state.withLock { s in
                if s.used == Self.words {
                    if s.words.isEmpty { s.words = [UInt64](repeating: 0, count: Self.words) }
                    // glibc's arc4random_buf: one getrandom(2) for the whole pool (glibc 2.36 keeps no state of
                    // its own in user space, so a forked child would not repeat its values either).
                    s.words.withUnsafeMutableBytes { arc4random_buf($0.baseAddress!, $0.count) }
                    s.used = 0
                }
                defer { s.used += 1 }
                return s.words[s.used]
            }
        }
    }

    /// Lowercase 8-4-4-4-12 text of 16 bytes.
    static func format(_ b: [UInt8]) -> String {
        let digits = Hex.digits
        var out = [UInt8]()
        out.reserveCapacity(36)
        for (i, byte) in b.enumerated() {
            if i == 4 || i == 6 || i == 8 || i == 10 { out.append(0x2D) }
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The v7 time field and a per-millisecond counter, so ids made by one process sort in the order they
    /// were made even within one millisecond, and never go backwards if the wall clock does.
    final class V7Clock: Sendable {
        static let shared = V7Clock()
        private let state = Mutex<(ms: UInt64, counter: UInt16)>((0, 0))

        func next() -> (UInt64, UInt16) {
            var ts = timespec()
            clock_gettime(CLOCK_REALTIME, &ts)
            let now = UInt64(ts.tv_sec) * 1000 + UInt64(ts.tv_nsec) / 1_000_000
            return state.withLock { s in
                if now > s.ms {
                    // A fresh millisecond starts the counter at a random point in its lower half, so two
                    // processes' ids within one millisecond do not start from the same value.
                    s = (now, UInt16.random(in: 0..<0x800))
                } else if s.counter < 0xFFF {
                    s.counter += 1
                } else {
                    // 4096 ids in one millisecond: borrow the next millisecond (keeps the order).
                    s = (s.ms + 1, 0)
                }
                return (s.ms, s.counter)
            }
        }
    }

    /// Lowercase canonical form of `text` when it is a UUID, else nil.
    /// By hand, not through `UUID(uuidString:)`: Foundation's parser goes through sscanf and its text
    /// through snprintf, which made id checks a visible share of every push and pull.
    public static func normalize(_ text: String) -> String? {
        switch uuidShape(text) {
        case .lowercase?: return text
        case .mixedCase?: return text.lowercased()
        case nil: return nil
        }
    }

    private enum UUIDShape { case lowercase, mixedCase }

    /// 8-4-4-4-12 hex digits with hyphens, or nil.
    private static func uuidShape(_ text: String) -> UUIDShape? {
        var text = text
        return text.withUTF8 { b -> UUIDShape? in
            guard b.count == 36 else { return nil }
            var shape = UUIDShape.lowercase
            for i in 0..<36 {
                let c = b[i]
                if i == 8 || i == 13 || i == 18 || i == 23 {
                    guard c == 0x2D else { return nil }
                    continue
                }
                switch c {
                case 0x30...0x39, 0x61...0x66: continue
                case 0x41...0x46: shape = .mixedCase
                default: return nil
                }
            }
            return shape
        }
    }

    public static func isUUID(_ text: String) -> Bool { normalize(text) == text }

    /// A deterministic id derived from a name (UUID version 8 layout over SHA-256). Used where the id is looked
    /// up by deriving it again (a sermon's publication, a job's answer), and for the transcripts and summaries
    /// made before `derivedInOrder`: two devices that each create "the" one write the same record, and the
    /// merge rule picks one, instead of leaving two.
    public static func derived(from parent: String, kind: String) -> String {
        format(derivedBytes(from: parent, kind: kind, leading: nil))
    }

    /// The id of a sermon's one transcript or one summary: as `derived`, deterministic from the parent and the
    /// kind, but ordered as the parent is. Its first 64 bits (less the version) are the parent's: for a v7
    /// parent, its time and counter. Why: a hashed id lands on a random page of every index keyed by id (the
    /// device's record key and search backlog, the server's record key, PostgreSQL's primary key), one per
    /// transcript, and as a store grows those pages stop being shared between commits and stop fitting its
    /// cache: measured on the 16x bench pull, the device's WAL frames per 2,000-change page went from 693 (1x)
    /// to 911, 263 of them in the record key's index alone. Ordered as their sermons, transcripts append.
    /// The other 62 bits are `derived`'s; a parent that is not a UUID gives `derived`'s id. (Foundation's UUID
    /// parser is fine here: this runs once per part written, not on every pushed or pulled change.)
    public static func derivedInOrder(from parent: String, kind: String) -> String {
        format(derivedBytes(from: parent, kind: kind, leading: UUID(uuidString: parent)))
    }

    /// SHA-256 of kind and parent as a version 8 UUID's bytes, its first 8 taken from `leading` when given.
    private static func derivedBytes(from parent: String, kind: String, leading: UUID?) -> [UInt8] {
        var bytes = Array(SHA256.hash(data: Array("tnotes:\(kind):\(parent)".utf8)).prefix(16))
        if let leading {
            withUnsafeBytes(of: leading.uuid) { for i in 0..<8 { bytes[i] = $0[i] } }
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return bytes
    }

    public static func isSHA256Hex(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }
}

public enum Hex {
    /// Lowercase hex digits, by value.
    static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    public static func encode<D: Sequence>(_ bytes: D) -> String where D.Element == UInt8 {
        var out = [UInt8]()
        for b in bytes {
            out.append(Hex.digits[Int(b >> 4)])
            out.append(Hex.digits[Int(b & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
