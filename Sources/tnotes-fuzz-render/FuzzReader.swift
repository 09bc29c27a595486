/// The fuzzer's bytes read as a sequence of choices. Every read is total: past the end each read gives 0,
/// and 0 is always the plainest choice (no more items, the first pool entry, "not rare"), so any input,
/// including the empty one, makes a small well-formed record and every loop over a count ends.
struct FuzzReader {
    private let bytes: [UInt8]
    private var position = 0
    /// Characters that long strings may still add for this input (`RecordGenerator.long`). The renderers are
    /// linear or close to it, but all of them together over a 100 kB text take about ten milliseconds, the
    /// time of twenty small inputs: most inputs stay small, one in sixteen may hold two labels past the
    /// 1,000-character bound, and one in 256 a text at the 100,000-character bound (one in 64 was a quarter
    /// of all the time), at the 100,000-inputs-a-minute rate scripts/fuzz.sh reports.
    var longBudget = 0

    /// The budget of an input, from a hash of all its bytes, not from a byte of it: libFuzzer mutates the
    /// inputs it kept, and a kept input with a long text would hand its budget byte on to nearly every
    /// mutation, until one input in five held a 100,000-character text (the rate fell from 2,000 inputs a
    /// second a worker to 700 within the minute). A hash gives every mutation its own draw.
    static func longBudget(of reader: FuzzReader) -> Int {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a
        for b in reader.bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        h ^= h >> 29
        return h % 256 == 0 ? 110_000 : h % 16 == 1 ? 2_200 : 0
    }

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var isExhausted: Bool { position >= bytes.count }

    mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    /// A number in 0..<n (n ≥ 1).
    mutating func below(_ n: Int) -> Int {
        n <= 1 ? 0 : (n <= 256 ? Int(byte()) % n : Int(u16()) % n)
    }

    /// True about once in `n` reads; false when the bytes have run out.
    mutating func rare(_ n: Int) -> Bool {
        below(n) == n - 1
    }

    mutating func bool() -> Bool { byte() & 1 == 1 }

    mutating func u16() -> UInt16 { UInt16(byte()) << 8 | UInt16(byte()) }

    mutating func u64() -> UInt64 {
        var v: UInt64 = 0
        for _ in 0..<8 { v = v << 8 | UInt64(byte()) }
        return v
    }

    mutating func pick<T>(_ pool: [T]) -> T { pool[below(pool.count)] }

    /// The next `n` bytes as they are (fewer at the end).
    mutating func raw(_ n: Int) -> ArraySlice<UInt8> {
        let end = min(bytes.count, position + n)
        defer { position = max(position, end) }
        return position < end ? bytes[position..<end] : []
    }
}
