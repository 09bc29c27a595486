import TNotesCore

/// The values a stored record can hold and a renderer must survive (issue #49, contract §8.1): the edges of
/// Double and Int64, times far past the seven-day bound, text that is empty, huge, markup, template syntax,
/// Markdown, control characters, scripts written right to left, grapheme clusters of many scalars, and the
/// scripture references the scan looks for.
enum Values {
    /// Seconds: exact edges first. `Int(seconds)` trapped on the ones from 1e19 up (issue #49).
    static let seconds: [Double] = [
        0, -0.0, 1, 59.5, 59.999999, 60, 3599.999, 3600, 86_399.5, 604_800, 604_800.0001, 604_799.9999,
        1e15 - 1, 1e15, 1e15 + 1, 9_223_372_036_854_774_784,  // the largest Double below Int64.max
        Double(Int64.max), Double(Int64.min), 1e19, 1e300, 1.7e308, Double.greatestFiniteMagnitude,
        Double.leastNonzeroMagnitude, Double.leastNormalMagnitude, Double.leastNormalMagnitude.nextDown, 1e-300, 0.1,
        -1, -0.5, -604_800, -1e19, -1.7e308, -Double.greatestFiniteMagnitude, -Double.leastNonzeroMagnitude,
        4_503_599_627_370_496, 4_503_599_627_370_495.5,  // 2^52: from here on every Double is whole
    ]

    /// Not JSON: only a snapshot built in memory (this target's) can hold them; the page must still render.
    static let nonFinite: [Double] = [.nan, .infinity, -.infinity, -.nan, .signalingNaN]

    static let integers: [Int64] = [
        0, 1, -1, 59, 60, 999, 1000, 1024, 604_800, 604_801, 1_000_000_000_000_000, 9_007_199_254_740_993,
        Int64.max, Int64.max - 1, Int64.min, Int64.min + 1, Int64(Int32.max), -604_800,
    ]

    static let pieces: [String] = [
        "", "a", "Amen.", "Grace and peace.", "In the beginning was the Word, and the Word was with God.",
        "Faith, hope and love abide; but the greatest of these is love!", "Why? Because He first loved us.",
        "John 3:16", "1 Cor 13:4-7", "Psalm 119:1-176", "Romans 8:28-39", "Gen 1:1", "Jude 1:25", "Rev 22:21",
        "Jn 3:16-18; Eph 2:8-9", "first corinthians thirteen four", "John chapter three verse sixteen",
        "Psalm 119:176", "Obadiah 1", "2 Kings 2:23-24", "Psalm 151:1", "John 99:99", "Mark 16:9-20",
        "</script><script>alert(1)</script>", "<SCRIPT SRC=x>", "<img src=x onerror=alert(1)>", "<!--", "-->",
        "<", ">", "&", "&amp;&lt;&#x3C;", "\"", "'", "`", "\\", "/", "</", "<style>", "</title>",
        "{{mustache}}", "{{{triple}}}", "{{#notes}}x{{/notes}}", "{{>partial}}", "{{! comment }}", "{{=<% %>=}}",
        "**bold**", "**", "*", "__", "# Heading", "- [ ] item", "> quote", "| a | b |", "---", "\n---\n",
        "[link](javascript:alert(1))", "![img](x)",
        "e\u{301}\u{302}\u{303}\u{304}\u{305}", "\u{301}", "👨‍👩‍👧‍👦", "🏳️‍🌈", "👍🏽", "🇺🇦",
        "\u{202E}שלום עולם\u{202C}", "مرحبا بالعالم", "\u{200F}", "\u{202B}", "漢字かな交じり文", "한국어",
        "\u{0}", "\r", "\r\n", "\n", "\n\n", "\t", "\u{B}", "\u{C}", "\u{1B}[31m", "\u{1B}[0m", "\u{1B}]0;title\u{7}",
        "\u{7F}", "\u{85}", "\u{2028}", "\u{2029}", "\u{FEFF}", "\u{200B}", "\u{FFFD}", "\u{10FFFF}", "\u{E000}",
        " ", "   ", ".", "...", "?", "!", "; ", "0", "-1", "NaN", "1e19", "null", "true", "{}", "[]", "%s%n", "\u{0}\u{0}",
        "2025-11-09T10:30:00.000Z", "2025-11-09", "Pastor Mike", "Sunday Service",
    ]

    /// RFC 3339 times as the store writes them, and strings in those fields that are not.
    static let times: [String] = [
        "2025-11-09T10:30:00.000Z", "2025-11-09T00:00:00.000Z", "1970-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z",
        "0000-01-01T00:00:00.000Z", "2025-13-45T99:99:99.999Z", "2025-11-09", "2025-11-0", "", "x", "2025-00-00",
        "2025-11-09T10:30", "+275760-09-13T00:00:00.000Z", "2025-11-09T10:30:00.000Z\u{0}", "２０２５-１１-０９",
        "-1-1-1T", "2025-1-9", "9223372036854775807-12-31", "2025-11-09T10:30:00.000+14:00",
    ]

    static let ids: [String] = [
        "0194a7c2-5a3e-7b1c-8d2e-3f4a5b6c7d8e", "00000000-0000-0000-0000-000000000000",
        "ffffffff-ffff-ffff-ffff-ffffffffffff", "", "../../etc/passwd", "not-a-uuid", "0194A7C2-5A3E-7B1C-8D2E-3F4A5B6C7D8E",
    ]

    static let statuses = StatusValues.processing + ["", "weird", "complete\n"]
    static let syncStates = ["synced", "pending", "conflict", "", "error"]
    static let summaryTypes = StatusValues.summaryTypes + ["", "haiku"]
    static let roles = StatusValues.chatRoles + ["system", ""]
    static let parts = RecordSchema.publicationParts + ["audio", ""]
    static let lengths = [999, 1000, 1001, 1002, 4096, 65_536, 100_000, 100_001]

    /// Keys that records, snapshots and results hold, so that a value made up of random shapes still hits the
    /// fields renderers read.
    static let keys = [
        "id", "title", "speaker", "date", "serviceType", "notes", "text", Note.name(\.timestamp), "summary", "transcript",
        "segments", "start", "end", "type", "status", "audio", "sizeBytes", "fileName", "sha256", "deletedAt",
        "isArchived", "syncState", "createdAt", "updatedAt", "snippet", "kind", "sermonId", "items", "book",
        "chapter", "verseStart", "verseEnd", "progress", "state", "record", "parts", "publishedAt", "snapshot",
        "content", "role", "local", "remote", "merged", "collection", "field", "", "\u{0}",
    ]
}
