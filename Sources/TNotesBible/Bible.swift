import CSword
import Foundation
import Synchronization
import TNotesScripture

/// One verse of a passage.
public struct Verse: Sendable, Equatable {
    /// Our canonical book name (`BibleBooks.all`: "1 Corinthians", "Psalms"), never SWORD's ("I Corinthians").
    public let book: String
    public let chapter: Int
    public let verse: Int
    /// The verse alone as plain text: no markup, headings, footnotes or pilcrows; white space collapsed.
    public let text: String

    public init(book: String, chapter: Int, verse: Int, text: String) {
        self.book = book
        self.chapter = chapter
        self.verse = verse
        self.text = text
    }
}

/// The verses of one or more references, in the order asked.
public struct Passage: Sendable, Equatable {
    /// For display: "Psalms 23:1-3", "Psalms 23:1,4", "John 3:16-4:2", "Jude 1".
    public let reference: String
    /// The translation as asked, uppercased ("KJV").
    public let translation: String
    public let verses: [Verse]

    public init(reference: String, translation: String, verses: [Verse]) {
        self.reference = reference
        self.translation = translation
        self.verses = verses
    }
}

public enum BibleError: Error, Equatable, CustomStringConvertible {
    /// A translation we know, whose SWORD module is not installed; `package` is the Debian package that has it.
    case translationMissing(translation: String, package: String)
    /// A translation not in `Bible.translations`.
    case unknownTranslation(String)
    /// A reference that does not parse, a book, chapter or verse the translation does not have, or a range
    /// that runs past the end of its chapter. Carries the reference as given or displayed.
    case noSuchPassage(String)

    public var description: String {
        switch self {
        case .translationMissing(let translation, let package):
            "The \(translation) Bible is not installed: install the Debian package \(package) (apt-get install \(package))."
        case .unknownTranslation(let translation):
            "Unknown Bible translation \"\(translation)\"; known: \(Bible.translations.keys.sorted().joined(separator: ", "))."
        case .noSuchPassage(let reference):
            reference.isEmpty ? "No Bible passage given." : "No such Bible passage: \(reference)."
        }
    }
}

/// Serialises every call into SWORD, across all `Bible` instances. SWORD is not thread-safe, and much of its
/// state is process-wide rather than per manager: the system FileMgr that pools the open module files, the log
/// and locale managers, and static buffers in which the flat API returns some results. A lock per instance would
/// not be enough.
private let swordLock = Mutex(())

/// The flat API's SWHANDLE: a C++ object's address as an intptr_t. It is a macro, so Swift does not see the
/// name; 0 is "none".
typealias SwordHandle = Int

/// Bible text from locally installed SWORD modules (Debian's sword-text-* packages), through SWORD's C "flat
/// API" (libsword).
///
/// Every method blocks: it reads compressed module files and holds a process-wide lock while it does (see
/// `swordLock`). Callers on an event loop or in async code should run it on a thread pool — the daemon does,
/// as it does its other blocking work. Reading a verse takes well under a millisecond; a chapter a few.
///
/// The SWORD library manager is created on first use, not in `init`, so a `Bible` costs nothing until asked
/// for text, and a missing or broken library shows up as `translationMissing` at that point.
public final class Bible: Sendable {
    /// The translations we know: SWORD module names to try, in order, and the Debian package that installs
    /// them. Debian 12's sword-text-kjv installs "engKJV2006eb" and sword-text-web "engWEB2015eb"; the short
    /// names are what older packages and CrossWire's own repository used ("KJV", "WEB"). SWORD does not resolve
    /// a module's Abbreviation, so both spellings are listed.
    public static let translations: [String: (modules: [String], package: String)] = [
        "KJV": (["KJV", "engKJV2006eb"], "sword-text-kjv"),
        "WEB": (["WEB", "engWEB2015eb"], "sword-text-web"),
    ]

    private enum Library {
        case unopened
        /// SWORD's manager.
        case open(SwordHandle)
        /// No library at the path given: every translation is missing.
        case unavailable
    }

    private let modulesPath: String?
    /// Read and written only while `swordLock` is held (its own lock makes it Sendable without `@unchecked`).
    private let library = Mutex(Library.unopened)

    /// - Parameter modulesPath: a SWORD library directory, the one holding `mods.d/` and `modules/`
    ///   ("/usr/share/sword"). nil: SWORD's own search ($SWORD_PATH, /etc/sword.conf — which Debian points at
    ///   /usr/share/sword — and ~/.sword). SWORD also adds modules from ~/.sword/mods.d in both cases.
    public init(modulesPath: String? = nil) {
        self.modulesPath = modulesPath
    }

    deinit {
        swordLock.withLock { _ in
            if case .open(let manager) = library.withLock({ $0 }) {
                tn_sword_mgr_delete(manager)
            }
        }
    }

    /// The keys of `translations` whose module is installed, sorted.
    public func installedTranslations() -> [String] {
        withManager { manager in
            guard let manager else { return [] }
            return Self.translations.filter { Self.module(in: manager, names: $0.value.modules) != nil }.keys.sorted()
        }
    }

    /// The verses of `references`, in order. A reference without verses is the whole chapter.
    public func passage(_ references: [ScriptureReference], translation: String = "KJV") throws(BibleError) -> Passage {
        let (name, entry) = try Self.translation(named: translation)
        return try passage(references.map { Span(reference: $0, end: nil) }, translation: name, entry: entry)
    }

    /// The verses of a typed reference ("John 3:16-18", "Ps 23:1,4", "1 Cor 13", "John 3:16-4:2"), parsed by
    /// `ScriptureReferences`. A range across chapters is read to its end, which `[ScriptureReference]` cannot
    /// express. Text that is not a reference is `noSuchPassage`.
    public func passage(_ text: String, translation: String = "KJV") throws(BibleError) -> Passage {
        let (name, entry) = try Self.translation(named: translation)
        guard let matches = ScriptureReferences.parseMatches(text), !matches.isEmpty else {
            throw .noSuchPassage(text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return try passage(matches.map { Span(reference: $0.reference, end: $0.spanEnd) }, translation: name, entry: entry)
    }

    // MARK: - Implementation

    /// A reference, with the far end of a range that crosses chapters ("John 3:16-4:2": 3:16 and 4:2).
    private struct Span {
        let reference: ScriptureReference
        let end: ChapterAndVerse?
    }

    private static func translation(named name: String) throws(BibleError) -> (String, (modules: [String], package: String)) {
        let key = name.trimmingCharacters(in: .whitespacesAndNewlines).uppercased()
        guard let entry = translations[key] else { throw .unknownTranslation(name) }
        return (key, entry)
    }

    private func passage(_ spans: [Span], translation: String,
                         entry: (modules: [String], package: String)) throws(BibleError) -> Passage {
        guard !spans.isEmpty else { throw .noSuchPassage("") }
        let verses = try withManager { manager throws(BibleError) -> [Verse] in
            guard let manager, let module = Self.module(in: manager, names: entry.modules) else {
                // Without libsword itself (loaded on first use, CSword.h) the package to install is the library.
                throw .translationMissing(translation: translation, package: tn_sword_load() != 0 ? entry.package : "libsword1.9.0")
            }
            var verses: [Verse] = []
            for span in spans {
                verses += try Self.verses(of: span, module: module, manager: manager)
            }
            return verses
        }
        return Passage(reference: Self.display(spans), translation: translation, verses: verses)
    }

    /// Runs `body` under the process-wide lock with this instance's manager, opening it on first use; nil when
    /// there is no library.
    private func withManager<T: Sendable, E: Error>(_ body: (SwordHandle?) throws(E) -> T) throws(E) -> T {
        try swordLock.withLock { _ throws(E) -> T in
            let manager = library.withLock { library -> SwordHandle? in
                if case .unopened = library {
                    library = Self.openManager(modulesPath: modulesPath).map(Library.open) ?? .unavailable
                }
                if case .open(let manager) = library { return manager }
                return nil
            }
            return try body(manager)
        }
    }

    private static func openManager(modulesPath: String?) -> SwordHandle? {
        // libsword is loaded here, on first use, not at start (CSword.h says why). Without it no translation
        // is installed, which is what a missing library amounts to for the reader.
        guard tn_sword_load() != 0 else { return nil }
        // SWORD logs to stderr (a missing config, a module it cannot read); the daemon reports failures itself.
        // The log level is process-wide, which is fine: nothing else in the process uses SWORD.
        tn_sword_set_log_level(0)
        let manager: SwordHandle
        if let modulesPath {
            // Given a directory without mods.d/, the flat API creates mods.d/globals.conf there, and the
            // directory itself if need be. A wrong path must not leave files behind: treat it as an empty library.
            var isDirectory: ObjCBool = false
            let modsDirectory = (modulesPath as NSString).appendingPathComponent("mods.d")
            guard FileManager.default.fileExists(atPath: modsDirectory, isDirectory: &isDirectory),
                  isDirectory.boolValue else { return nil }
            manager = tn_sword_mgr_new_with_path(modulesPath)
        } else {
            manager = tn_sword_mgr_new()
        }
        return manager == 0 ? nil : manager
    }

    private static func module(in manager: SwordHandle, names: [String]) -> SwordHandle? {
        for name in names {
            let module = tn_sword_mgr_module(manager, name)
            if module != 0 { return module }
        }
        return nil
    }

    /// The verses of one span. Empty entries (a verse the translation leaves out, as the WEB does with Romans
    /// 16:27 in its NRSVA versification) are skipped; a span that yields no verse at all is `noSuchPassage`.
    private static func verses(of span: Span, module: SwordHandle, manager: SwordHandle) throws(BibleError) -> [Verse] {
        let reference = span.reference
        let missing = BibleError.noSuchPassage(display(span))
        guard let book = OSISBooks.resolve(reference.book), reference.chapter >= 1 else { throw missing }

        // (chapter, first verse, last verse or nil for the chapter's end)
        var runs: [(chapter: Int, first: Int, last: Int?)]
        if let end = span.end, let start = reference.verseStart {
            guard end.chapter > reference.chapter, end.verse >= 1 else { throw missing }
            runs = [(reference.chapter, start, nil)]
            runs += (reference.chapter + 1..<end.chapter).map { ($0, 1, nil) }
            runs.append((end.chapter, 1, end.verse))
        } else if let start = reference.verseStart {
            runs = [(reference.chapter, start, reference.verseEnd ?? start)]
        } else {
            runs = [(reference.chapter, 1, nil)]
        }

        var verses: [Verse] = []
        for run in runs {
            // SWORD normalises a key it cannot place (John 3:99 becomes John 5:9, John 30:1 Acts 9:1): seek
            // reports where it landed, and anything but the verse asked for means there is no such verse.
            guard run.first >= 1, let verseCount = seek(module, osis: book.osis, chapter: run.chapter, verse: run.first)
            else { throw missing }
            let last = run.last ?? verseCount
            guard last >= run.first, last <= verseCount else { throw missing }
            for verse in run.first...last {
                guard verse == run.first || seek(module, osis: book.osis, chapter: run.chapter, verse: verse) != nil
                else { throw missing }
                let text = plainText(module: module, manager: manager)
                if !text.isEmpty {
                    verses.append(Verse(book: book.name, chapter: run.chapter, verse: verse, text: text))
                }
            }
        }
        guard !verses.isEmpty else { throw missing }
        return verses
    }

    /// Positions `module` on a verse. Returns the number of verses in its chapter, or nil when SWORD could not
    /// place the key exactly there.
    private static func seek(_ module: SwordHandle, osis: String, chapter: Int, verse: Int) -> Int? {
        let key = "\(osis).\(chapter).\(verse)"
        tn_sword_module_set_key_text(module, key)
        guard tn_sword_module_pop_error(module) == 0 else { return nil }
        // For a verse-keyed module: testament, book, chapter, verse, chapter count, verse count, book name, OSIS
        // reference, … (flatapi.h, getKeyChildren).
        guard let children = tn_sword_module_key_children(module) else { return nil }
        var values: [String] = []
        while values.count <= Int(TN_SWORD_VERSEKEY_OSISREF), let child = children[values.count] {
            values.append(String(cString: child))
        }
        guard values.count > Int(TN_SWORD_VERSEKEY_OSISREF),
              values[Int(TN_SWORD_VERSEKEY_OSISREF)] == key else { return nil }
        return Int(values[Int(TN_SWORD_VERSEKEY_VERSEMAX)])
    }

    /// The current verse as plain text (see `OSISText`).
    private static func plainText(module: SwordHandle, manager: SwordHandle) -> String {
        guard let raw = tn_sword_module_raw_entry(module) else { return "" }
        let prepared = OSISText.prepare(Array(UnsafeRawBufferPointer(start: raw, count: strlen(raw))))
        // OSISPlain is SWORD's OSIS-to-plain-text filter, the one stripText itself ends with. filterText
        // copies its result into a buffer of the manager's, valid until the next call: copied at once.
        guard let rendered = tn_sword_mgr_filter_text(manager, "OSISPlain", String(decoding: prepared, as: UTF8.self))
        else { return "" }
        return OSISText.finish(String(cString: rendered))
    }

    /// "Psalms 23:1-3"; a list in one chapter as the reader wrote it, "Psalms 23:1,4"; further chapters of the
    /// same book after a semicolon, "John 3:16; 4:2"; other books in full, "John 3:16; Romans 8:1".
    private static func display(_ spans: [Span]) -> String {
        var text = ""
        var previous: ScriptureReference?
        for span in spans {
            let reference = span.reference
            let verses = reference.verseStart.map { start in reference.verseEnd.map { "\(start)-\($0)" } ?? "\(start)" }
            if let previous, previous.book == reference.book, span.end == nil {
                if previous.chapter == reference.chapter, previous.verseStart != nil, let verses {
                    text += ",\(verses)"
                } else {
                    text += "; \(reference.chapter)" + (verses.map { ":\($0)" } ?? "")
                }
            } else {
                text += (text.isEmpty ? "" : "; ") + display(span)
            }
            // After a range across chapters, the next item is written in full.
            previous = span.end == nil ? reference : nil
        }
        return text
    }

    private static func display(_ span: Span) -> String {
        span.reference.display + (span.end.map { "-\($0.chapter):\($0.verse)" } ?? "")
    }
}
