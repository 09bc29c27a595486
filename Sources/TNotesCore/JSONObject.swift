/// A JSON object's members: a small array of key/value pairs kept sorted by the keys' UTF-8 bytes, not a
/// `Dictionary`.
///
/// Why hand-written: a record has about a dozen members and a transcript segment three or four, and a
/// `Dictionary<String, JSON>` hashed every key (SipHash) on every insert and every look-up. Measured with `perf`
/// on the pulling device in a 1× sync, hashing and the dictionaries' storage were 24 % of the decoding threads'
/// samples (and 8 % of the server's push). Here a look-up in a small object compares keys, which for a key of
/// up to 15 bytes is two machine words; a larger one is a binary search. Kept sorted, the members are also
/// already in the canonical order that `JSON.text` writes, so writing an object sorts nothing.
///
/// The API is the part of `Dictionary`'s that the code uses, with the same meaning (a repeated key keeps its
/// last value; assigning nil removes). Order never shows except as the canonical one. Unlike a `Dictionary`,
/// keys are compared by their bytes, not by Unicode canonical equivalence.
public struct JSONObject: Sendable {
    public typealias Element = (key: String, value: JSON)

    /// Sorted by `precedes`, keys unique.
    @usableFromInline var entries: [Element]

    public init() { entries = [] }

    public init(minimumCapacity: Int) {
        entries = []
        entries.reserveCapacity(minimumCapacity)
    }

    /// Pairs in any order; a repeated key keeps its last value.
    public init<S: Sequence>(_ pairs: S) where S.Element == (String, JSON) {
        var list: [Element] = pairs.map { (key: $0.0, value: $0.1) }
        Self.sortKeepingLast(&list)
        entries = list
    }

    public init(_ dictionary: [String: JSON]) {
        self.init(dictionary.lazy.map { ($0.key, $0.value) })
    }

    /// For the parser: `list` is in the order it was read, and `sorted` says whether its keys were read strictly
    /// ascending (then it is taken as it is).
    init(parsed list: [Element], sorted: Bool) {
        var list = list
        if !sorted { Self.sortKeepingLast(&list) }
        entries = list
    }

    /// Stable sort, then of each run of one key only the last stays.
    static func sortKeepingLast(_ list: inout [Element]) {
        if list.count < 2 { return }
        var ascending = true
        for k in list.indices.dropFirst() where !precedes(list[k - 1].key, list[k].key) {
            ascending = false
            break
        }
        if ascending { return }
        // Indices make the sort stable (Swift's sort is, but does not promise it).
        var indexed = list.enumerated().map { ($0.offset, $0.element) }
        indexed.sort { a, b in
            let o = compare(a.1.key, b.1.key)
            return o != 0 ? o < 0 : a.0 < b.0
        }
        var out = [Element]()
        out.reserveCapacity(indexed.count)
        for (_, e) in indexed {
            if let last = out.last, same(last.key, e.key) { out[out.count - 1] = e } else { out.append(e) }
        }
        list = out
    }

    // MARK: Key order

    /// UTF-8 byte order (which is code point order): the canonical order of keys in `JSON.text`.
    @inlinable
    public static func precedes(_ a: String, _ b: String) -> Bool { compare(a, b) < 0 }

    /// Three-way, by UTF-8 bytes. Walking the two UTF-8 views took 21 ns a compare of record keys, against 58 ns
    /// through `withUTF8` and `memcmp` (which copy a short string out first); `String`'s `<` is faster but orders by
    /// Unicode scalars after normalization, not by bytes.
    @inlinable
    static func compare(_ a: String, _ b: String) -> Int {
        var x = a.utf8.makeIterator(), y = b.utf8.makeIterator()
        while true {
            guard let p = x.next() else { return y.next() == nil ? 0 : -1 }
            guard let q = y.next() else { return 1 }
            if p != q { return p < q ? -1 : 1 }
        }
    }

    /// Keys are the same when their bytes are: JSON names members by code points, so "é" and "e\u{301}" are two
    /// members (`String`'s `==` alone would take them as one). 10 ns a compare of record keys, where a look-up
    /// in a `Dictionary` was 72 ns and a `memcmp` of the bytes 58 ns.
    @inlinable
    static func same(_ a: String, _ b: String) -> Bool {
        // Lengths first; then `==`, which is false for any two keys whose bytes differ, except canonically
        // equivalent ones, and for two short strings of the same bytes is a compare of their two words.
        if a.utf8.count != b.utf8.count { return false }
        guard a == b else { return false }
        // Equal bit patterns are the same bytes (the same short string, or the same storage); otherwise the
        // bytes themselves decide.
        if unsafeBitCast(a, to: (UInt64, UInt64).self) == unsafeBitCast(b, to: (UInt64, UInt64).self) { return true }
        return a.utf8.elementsEqual(b.utf8)
    }

    // MARK: Look-up

    /// Up to this many members a look-up compares keys one by one (`same`); above it, a binary search (the
    /// largest record has 14 members).
    @usableFromInline static let linearLimit = 16

    /// Where `key` is, or where it would go.
    @inlinable
    func search(_ key: String) -> (found: Bool, index: Int) {
        if entries.count <= Self.linearLimit {
            for k in entries.indices where Self.same(entries[k].key, key) { return (true, k) }
            // Not there: its place in the order (only inserts need it).
            var k = 0
            while k < entries.count && Self.precedes(entries[k].key, key) { k += 1 }
            return (false, k)
        }
        var lo = 0, hi = entries.count
        while lo < hi {
            let mid = (lo + hi) / 2
            let c = Self.compare(entries[mid].key, key)
            if c == 0 { return (true, mid) }
            if c < 0 { lo = mid + 1 } else { hi = mid }
        }
        return (false, lo)
    }

    @inlinable
    public subscript(key: String) -> JSON? {
        get {
            if entries.count <= Self.linearLimit {
                for e in entries where Self.same(e.key, key) { return e.value }
                return nil
            }
            let (found, k) = search(key)
            // Not `found ? value : nil`: JSON takes the nil literal too, and that would read as `.null`.
            if found { return entries[k].value }
            return nil
        }
        set {
            let (found, k) = search(key)
            if let v = newValue {
                if found { entries[k].value = v } else { entries.insert((key, v), at: k) }
            } else if found {
                entries.remove(at: k)
            }
        }
    }

    @discardableResult
    public mutating func removeValue(forKey key: String) -> JSON? {
        let (found, k) = search(key)
        if found { return entries.remove(at: k).value }
        return nil
    }

    // MARK: Views

    public var keys: LazyMapCollection<[Element], String> { entries.lazy.map(\.key) }
    public var values: LazyMapCollection<[Element], JSON> { entries.lazy.map(\.value) }

    public func mapValues(_ transform: (JSON) throws -> JSON) rethrows -> JSONObject {
        var out = self
        for k in out.entries.indices { out.entries[k].value = try transform(out.entries[k].value) }
        return out
    }

    public func filter(_ isIncluded: (Element) throws -> Bool) rethrows -> JSONObject {
        var out = JSONObject()
        out.entries = try entries.filter(isIncluded)
        return out
    }

    public mutating func merge(_ other: JSONObject, uniquingKeysWith combine: (JSON, JSON) throws -> JSON) rethrows {
        for (key, value) in other.entries {
            let (found, k) = search(key)
            if found { entries[k].value = try combine(entries[k].value, value) } else { entries.insert((key, value), at: k) }
        }
    }

    /// The members as a `Dictionary`, for APIs that take one. Keys here are distinct as UTF-8 bytes, but a
    /// `Dictionary` compares Strings by canonical equivalence: a precomposed and a decomposed "é" are one key
    /// there, and `uniqueKeysWithValues` would trap on an object any client can send. The first one is kept.
    public var dictionary: [String: JSON] {
        Dictionary(entries.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
    }
}

extension JSONObject: RandomAccessCollection {
    public var startIndex: Int { 0 }
    public var endIndex: Int { entries.count }
    public subscript(position: Int) -> Element { entries[position] }
    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }
}

extension JSONObject: Hashable {
    public static func == (a: JSONObject, b: JSONObject) -> Bool {
        guard a.entries.count == b.entries.count else { return false }
        // The same storage (a value passed along unchanged, as `RecordSchema.normalize` checks for) is equal
        // without looking at the members.
        let shared = a.entries.withUnsafeBufferPointer { x in b.entries.withUnsafeBufferPointer { y in x.baseAddress == y.baseAddress } }
        if shared { return true }
        for (x, y) in zip(a.entries, b.entries) where !same(x.key, y.key) || x.value != y.value { return false }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(entries.count)
        for e in entries {
            hasher.combine(e.key)
            hasher.combine(e.value)
        }
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSON)...) { self.init(elements) }
}

extension JSONObject: Codable {
    public init(from decoder: any Decoder) throws { self.init(try [String: JSON](from: decoder)) }
    public func encode(to encoder: any Encoder) throws { try dictionary.encode(to: encoder) }
}

extension JSONObject: CustomStringConvertible {
    public var description: String { JSON.object(self).text }
}
