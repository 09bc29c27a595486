/// Content terms of English text for scoring: lowercased words, stop words and speech fillers removed,
/// possessives dropped, and a light suffix-stripping stem so "forgive", "forgiving" and "forgiveness" count as
/// one term. The stem need not be a real word; it only has to be the same for the forms of one word, on both
/// sides of every comparison (sentences, notes and questions all go through here).
enum TextTerms {
    /// The content terms of `text` in order, repeats kept (term frequency counts them).
    /// `dropping` removes further words (given lowercased, as they appear in the text) — the assistant drops
    /// the words of a question ("what did the pastor say").
    static func terms(in text: String, dropping extra: Set<String> = []) -> [String] {
        contentWords(in: text, dropping: extra).map(\.term)
    }

    /// The content words of `text` in order: each as written (lowercased) and as its term.
    static func contentWords(in text: String, dropping extra: Set<String> = []) -> [(word: String, term: String)] {
        var out: [(word: String, term: String)] = []
        var word = String.UnicodeScalarView()
        func flush() {
            guard !word.isEmpty else { return }
            let w = String(word)
            if let t = term(w, dropping: extra) { out.append((w, t)) }
            word = String.UnicodeScalarView()
        }
        for scalar in text.lowercased().unicodeScalars {
            let v = scalar.value
            let isWordChar: Bool
            if v < 0x80 {
                isWordChar = (v >= 0x61 && v <= 0x7A) || (v >= 0x30 && v <= 0x39)
            } else {
                isWordChar = scalar.properties.isAlphabetic || scalar.properties.numericType != nil
            }
            if isWordChar {
                word.append(scalar)
            } else if v == 0x27 || v == 0x2019 || v == 0x2018, !word.isEmpty {
                word.append("'")  // inside a word: "don't", "god's"; a trailing quote is trimmed in term()
            } else {
                flush()
            }
        }
        flush()
        return out
    }

    /// The term of a single word (nil for a stop word), for matching words of a quote against a question.
    static func term(ofWord word: String) -> String? {
        contentWords(in: word).first?.term
    }

    /// One lowercased word → its term, or nil when it carries no content.
    private static func term(_ raw: String, dropping extra: Set<String>) -> String? {
        var w = Substring(raw)
        while w.last == "'" { w = w.dropLast(1) }  // not `dropLast()`: O(n) on a Substring (`Prose.sentence`)
        guard !w.isEmpty else { return nil }
        if stopWords.contains(String(w)) || extra.contains(String(w)) { return nil }
        if w.hasSuffix("'s") { w = w.dropLast(2) }
        var plain = String(w)
        if plain.contains("'") { plain.removeAll { $0 == "'" } }
        if stopWords.contains(plain) || extra.contains(plain) { return nil }
        let isNumber = plain.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
        // Single letters are noise ("s", "t" from broken contractions); numbers stay — "8" and "28" are how a
        // question about "Romans 8:28" finds the sentence that reads it.
        if plain.unicodeScalars.count < 2, !isNumber { return nil }
        return isNumber ? plain : stem(plain)
    }

    /// A light stemmer (Porter's step 1 and a few step-2 suffixes, simplified). Works on ASCII words; others
    /// are returned as they are.
    static func stem(_ word: String) -> String {
        guard word.utf8.count > 3, word.utf8.allSatisfy({ $0 >= 0x61 && $0 <= 0x7A }) else { return word }
        var w = Array(word.utf8)
        func ends(_ s: StaticString) -> Bool {
            let n = s.utf8CodeUnitCount
            guard w.count > n else { return false }
            let p = s.utf8Start
            for k in 0..<n where w[w.count - n + k] != p[k] { return false }
            return true
        }
        // Strip one suffix when at least three letters remain (so "king", "thing", "sing" stay whole).
        func strip(_ s: StaticString, replacement: [UInt8] = []) -> Bool {
            guard ends(s), w.count - s.utf8CodeUnitCount >= 3 else { return false }
            w.removeLast(s.utf8CodeUnitCount)
            w.append(contentsOf: replacement)
            return true
        }
        var verbal = false  // -ing/-ed/-er/-en: a doubled consonant before them was added ("sinned", "running")
        if strip("nesses") || strip("ness") || strip("ments") || strip("ment") || strip("fully") || strip("ful") {
        } else if strip("ies", replacement: [0x79]) || strip("ied", replacement: [0x79]) {
        } else if strip("ings") || strip("ing") || strip("edly") || strip("ed") || strip("ers") || strip("er")
                    || strip("en") {
            verbal = true
        } else if strip("ly") {
        } else if ends("sses") || ends("ches") || ends("shes") || ends("xes") || ends("zes") {
            _ = strip("es")
        } else if ends("s"), !ends("ss"), !ends("us"), !ends("is") {
            _ = strip("s")
        }
        if verbal, w.count >= 4, w[w.count - 1] == w[w.count - 2], !isVowel(w[w.count - 1]),
           ![0x6C, 0x73, 0x7A].contains(w[w.count - 1]) {  // not l, s, z: "called", "passed", "buzzed"
            w.removeLast()
        }
        // "love"/"loved"/"loving" → "lov": drop a final e so verb forms meet.
        if w.count > 3, w.last == 0x65 { w.removeLast() }
        return String(decoding: w, as: UTF8.self)
    }

    private static func isVowel(_ c: UInt8) -> Bool { [0x61, 0x65, 0x69, 0x6F, 0x75, 0x79].contains(c) }

    /// Common English function words (the usual IR list), contractions with and without the apostrophe
    /// (speech-to-text writes both), and spoken fillers: words that would otherwise top every frequency count
    /// in a transcript while saying nothing about its subject.
    static let stopWords: Set<String> = [
        // Function words.
        "a", "about", "above", "after", "again", "against", "all", "almost", "also", "although", "always", "am",
        "among", "an", "and", "another", "any", "anybody", "anyone", "anything", "anyway", "are", "around", "as",
        "at", "away", "back", "be", "became", "because", "become", "becomes", "been", "before", "being", "below",
        "between", "both", "but", "by", "can", "cannot", "could", "did", "do", "does", "doing", "done", "down",
        "during", "each", "either", "else", "enough", "even", "ever", "every", "everybody", "everyone",
        "everything", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers",
        "herself", "him", "himself", "his", "how", "however", "i", "if", "in", "into", "is", "it", "its", "itself",
        "just", "least", "less", "let", "lets", "many", "may", "me", "might", "mine", "more", "most", "much",
        "must", "my", "myself", "neither", "never", "no", "nobody", "none", "nor", "not", "nothing", "now", "of",
        "off", "often", "on", "once", "one", "ones", "only", "onto", "or", "other", "others", "otherwise", "ought",
        "our", "ours", "ourselves", "out", "over", "own", "per", "perhaps", "quite", "rather", "same", "shall",
        "she", "should", "since", "so", "some", "somebody", "someone", "something", "sometimes", "somewhere",
        "still", "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there",
        "therefore", "these", "they", "this", "those", "though", "through", "thus", "to", "together", "too",
        "toward", "towards", "under", "until", "unto", "up", "upon", "us", "very", "was", "we", "were", "what",
        "whatever", "when", "whenever", "where", "wherever", "whether", "which", "while", "who", "whoever",
        "whom", "whose", "why", "will", "with", "within", "without", "would", "yet", "you", "your", "yours",
        "yourself", "yourselves",
        // Archaic pronouns and verb forms common in scripture readings.
        "thee", "thou", "thy", "thine", "ye", "hath", "doth", "shalt", "wilt", "art",
        // Contractions, both spellings.
        "ain't", "aren't", "can't", "couldn't", "didn't", "doesn't", "don't", "hadn't", "hasn't", "haven't",
        "he'd", "he'll", "he's", "here's", "how's", "i'd", "i'll", "i'm", "i've", "isn't", "it'd", "it'll",
        "it's", "let's", "mustn't", "shan't", "she'd", "she'll", "she's", "shouldn't", "that'll", "that's",
        "there's", "they'd", "they'll", "they're", "they've", "wasn't", "we'd", "we'll", "we're", "we've",
        "weren't", "what's", "when's", "where's", "who's", "why's", "won't", "wouldn't", "you'd", "you'll",
        "you're", "you've", "y'all", "gonna", "gotta", "wanna", "kinda", "sorta", "aint", "arent", "cant",
        "couldnt", "didnt", "doesnt", "dont", "hadnt", "hasnt", "havent", "hes", "heres", "im", "ive", "isnt",
        "itll", "mustnt", "shes", "shouldnt", "thats", "theres", "theyd", "theyll", "theyre", "theyve", "wasnt",
        "weve", "werent", "whats", "wont", "wouldnt", "youd", "youll", "youre", "youve", "yall", "id", "ill",
        // Spoken fillers and sermon small talk.
        "ah", "amen", "actually", "basically", "certainly", "come", "comes", "coming", "definitely", "get", "gets",
        "getting", "go", "goes", "going", "gone", "got", "gotten", "guess", "hey", "hmm", "indeed",
        "kind", "know", "knew", "known", "like", "literally", "look", "lot", "lots", "maybe", "mean", "mm", "oh",
        "ok", "okay", "probably", "put", "really", "right", "said", "say", "saying", "says", "see", "seen",
        "simply", "sort", "stuff", "sure", "take", "tell", "thing", "things", "think", "thought", "today", "uh",
        "um", "umm", "want", "wanted", "way", "well", "whole", "yeah", "yes", "yep",
    ]
}

/// Interns terms as small integers so the scoring loops compare and count Ints. Ids are handed out in order
/// of first appearance, so they (and everything computed from them) depend only on the input text, never on
/// hashing.
struct Vocabulary {
    private(set) var ids: [String: Int] = [:]
    var count: Int { ids.count }

    mutating func intern(_ term: String) -> Int {
        if let id = ids[term] { return id }
        let id = ids.count
        ids[term] = id
        return id
    }

    func lookup(_ term: String) -> Int? { ids[term] }
}

/// Sorted, duplicate-free term ids: set operations by merging, with no Set iteration order anywhere.
enum TermSet {
    static func make(_ ids: [Int]) -> [Int] {
        var s = ids.sorted()
        var w = 0
        for r in s.indices where r == 0 || s[r] != s[r - 1] {
            s[w] = s[r]
            w += 1
        }
        s.removeLast(s.count - w)
        return s
    }

    static func intersectionCount(_ a: [Int], _ b: [Int]) -> Int {
        var i = 0, j = 0, n = 0
        while i < a.count, j < b.count {
            if a[i] == b[j] { n += 1; i += 1; j += 1 } else if a[i] < b[j] { i += 1 } else { j += 1 }
        }
        return n
    }

    /// Sum of `weight` over the ids in both sets, in increasing id order (a fixed summation order, so the
    /// floating-point result is reproducible).
    static func sharedWeight(_ a: [Int], _ b: [Int], _ weight: [Double]) -> Double {
        var i = 0, j = 0, sum = 0.0
        while i < a.count, j < b.count {
            if a[i] == b[j] { sum += weight[a[i]]; i += 1; j += 1 } else if a[i] < b[j] { i += 1 } else { j += 1 }
        }
        return sum
    }

    /// Jaccard similarity: how near-duplicate two sentences are.
    static func jaccard(_ a: [Int], _ b: [Int]) -> Double {
        let shared = intersectionCount(a, b)
        let union = a.count + b.count - shared
        return union == 0 ? 0 : Double(shared) / Double(union)
    }
}
