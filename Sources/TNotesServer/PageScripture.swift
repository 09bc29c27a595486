import Synchronization
import TNotesBible
import TNotesCore
import TNotesLifecycle
import TNotesScripture

/// A verse (or a short run of verses) a published page cites, with its text.
public struct ScriptureQuote: Sendable, Equatable {
    /// "John 3:16 (KJV)".
    public let reference: String
    public let text: String

    public init(reference: String, text: String) {
        self.reference = reference
        self.text = text
    }
}

/// The verses a published page cites (contract §8.5): the references found in its notes and summary, each with
/// its King James text from SWORD (Debian's sword-text-kjv, which the server's package depends on). Whole
/// chapters are named but not quoted; a long run of verses is quoted up to `maxVerses`. Without the module the
/// page simply has no quotes.
///
/// SWORD is blocking and serialized by a process-wide lock (TNotesBible), so lookups run on the blocking pool,
/// and each reference's text is kept: a page is read far more often than it changes.
final class PageScripture: Sendable {
    private let bible: Bible
    /// Looked-up texts by reference ("" when there is none: no module, no such verse); bounded.
    private let known = Mutex<[ScriptureReference: String]>([:])

    static let maxReferences = 12
    static let maxVerses = 8
    static let maxKnown = 4096
    static let translation = "KJV"

    init(modulesPath: String? = nil) {
        bible = Bible(modulesPath: modulesPath)
    }

    /// The quotes for the references in `texts`, in order of first mention, without repeats.
    func quotes(in texts: [String]) async -> [ScriptureQuote] {
        var seen = Set<ScriptureReference>()
        var references: [ScriptureReference] = []
        for text in texts {
            for r in ScriptureReferences.references(in: text) where r.verseStart != nil && seen.insert(r).inserted {
                references.append(r)
            }
            if references.count >= Self.maxReferences { break }
        }
        references = Array(references.prefix(Self.maxReferences))
        guard !references.isEmpty else { return [] }
        let missing = known.withLock { k in references.filter { k[$0] == nil } }
        if !missing.isEmpty {
            let bible = self.bible
            let found: [ScriptureReference: String] = (try? await BlockingWork.run {
                var out: [ScriptureReference: String] = [:]
                for r in missing { out[r] = Self.text(of: r, in: bible) }
                return out
            }) ?? [:]
            known.withLock { k in
                if k.count + found.count > Self.maxKnown { k.removeAll(keepingCapacity: true) }
                k.merge(found) { _, new in new }
            }
        }
        let texts = known.withLock { k in references.map { k[$0] ?? "" } }
        return zip(references, texts).compactMap { r, text in
            text.isEmpty ? nil : ScriptureQuote(reference: "\(r.display) (\(Self.translation))", text: text)
        }
    }

    /// The verses' text, one run, at most `maxVerses` of them ("…" after); "" when SWORD has none.
    static func text(of reference: ScriptureReference, in bible: Bible) -> String {
        guard let passage = try? bible.passage([reference], translation: translation) else { return "" }
        let verses = passage.verses.prefix(maxVerses).map { $0.text.trimmingSpaces }.filter { !$0.isEmpty }
        guard !verses.isEmpty else { return "" }
        return verses.joined(separator: " ") + (passage.verses.count > maxVerses ? " …" : "")
    }
}
