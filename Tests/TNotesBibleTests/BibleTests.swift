import Foundation
import Testing
@testable import TNotesBible
import TNotesScripture

/// One library for the tests that read text: `Bible` is Sendable and serialises its calls, so sharing it across
/// tests that swift-testing runs in parallel is itself part of what is tested.
private let bible = Bible()
private let installed = bible.installedTranslations()

/// Tests that read real text need the module installed (`apt-get install sword-text-kjv`, `sword-text-web`);
/// without it they show as skipped, with the package named, rather than passing silently.
private let needsKJV = ConditionTrait.enabled(if: installed.contains("KJV"), "needs sword-text-kjv")
private let needsWEB = ConditionTrait.enabled(if: installed.contains("WEB"), "needs sword-text-web")

@Suite("Bible text from SWORD modules")
struct BibleTests {
    // MARK: KJV text, exactly as engKJV2006eb (Debian's sword-text-kjv 14.3) has it

    @Test(needsKJV)
    func john316() throws {
        let passage = try bible.passage("John 3:16")
        #expect(passage.reference == "John 3:16")
        #expect(passage.translation == "KJV")
        #expect(passage.verses == [Verse(book: "John", chapter: 3, verse: 16, text:
            "For God so loved the world, that he gave his only begotten Son, that whosoever believeth in him should not perish, but have everlasting life.")])
    }

    /// No "A Psalm of David." heading before verse 1; the module's typographic apostrophe in "name’s" kept.
    @Test(needsKJV)
    func psalm23Range() throws {
        let passage = try bible.passage("Psalm 23:1-3")
        #expect(passage.reference == "Psalms 23:1-3")
        #expect(passage.verses.map(\.verse) == [1, 2, 3])
        #expect(passage.verses.allSatisfy { $0.book == "Psalms" && $0.chapter == 23 })
        #expect(passage.verses.map(\.text) == [
            "The LORD is my shepherd; I shall not want.",
            "He maketh me to lie down in green pastures: he leadeth me beside the still waters.",
            "He restoreth my soul: he leadeth me in the paths of righteousness for his name’s sake.",
        ])
    }

    /// Our book name comes back, not SWORD's "I Corinthians".
    @Test(needsKJV)
    func firstCorinthians() throws {
        let passage = try bible.passage("1 Cor 13:4")
        #expect(passage.reference == "1 Corinthians 13:4")
        #expect(passage.verses == [Verse(book: "1 Corinthians", chapter: 13, verse: 4, text:
            "Charity suffereth long, and is kind; charity envieth not; charity vaunteth not itself, is not puffed up,")])
    }

    @Test(needsKJV)
    func wholeChapter() throws {
        let psalm = try bible.passage("Psalm 117")
        #expect(psalm.reference == "Psalms 117")
        #expect(psalm.verses == [
            Verse(book: "Psalms", chapter: 117, verse: 1, text: "O praise the LORD, all ye nations: praise him, all ye people."),
            Verse(book: "Psalms", chapter: 117, verse: 2, text:
                "For his merciful kindness is great toward us: and the truth of the LORD endureth for ever. Praise ye the LORD."),
        ])

        let jude = try bible.passage([ScriptureReference(book: "Jude", chapter: 1)])
        #expect(jude.verses.map(\.verse) == Array(1...25))
        #expect(jude.verses.last?.text ==
            "To the only wise God our Saviour, be glory and majesty, dominion and power, both now and ever. Amen.")
    }

    @Test(needsKJV)
    func verseList() throws {
        let passage = try bible.passage("Ps 23:1,4")
        #expect(passage.reference == "Psalms 23:1,4")
        #expect(passage.verses.map(\.verse) == [1, 4])
        #expect(passage.verses[1].text ==
            "Yea, though I walk through the valley of the shadow of death, I will fear no evil: for thou art with me; thy rod and thy staff they comfort me.")
    }

    /// A range across chapters, which `[ScriptureReference]` cannot express, is read to its end from text.
    @Test(needsKJV)
    func rangeAcrossChapters() throws {
        let passage = try bible.passage("John 3:35-4:2")
        #expect(passage.reference == "John 3:35-4:2")
        #expect(passage.verses.map { "\($0.chapter):\($0.verse)" } == ["3:35", "3:36", "4:1", "4:2"])
        #expect(passage.verses.last?.text == "(Though Jesus himself baptized not, but his disciples,)")
    }

    /// Every canonical book name maps to a book SWORD has, and comes back unchanged.
    @Test(needsKJV)
    func everyBook() throws {
        #expect(BibleBooks.all.map(\.name) == OSISBooks.pairs.map(\.name))
        for (name, chapters) in BibleBooks.all {
            let last = try bible.passage([ScriptureReference(book: name, chapter: chapters, verseStart: 1)])
            #expect(last.verses.map(\.book) == [name])
            #expect(last.verses.first?.text.isEmpty == false)
        }
    }

    /// The KJV marks paragraphs with "¶"; the module's USFM leftover "\nd" (Exodus 6:3) is not text either.
    @Test(needsKJV)
    func pilcrowsAndMarkupLeftovers() throws {
        #expect(try bible.passage("Genesis 1:6").verses.first?.text ==
            "And God said, Let there be a firmament in the midst of the waters, and let it divide the waters from the waters.")
        #expect(try bible.passage("Exodus 6:3").verses.first?.text ==
            "And I appeared unto Abraham, unto Isaac, and unto Jacob, by the name of God Almighty, but by my name JEHOVAH was I not known to them.")
        // After the last verse of Romans the module has the subscription "Written to the Romans from Corinthus…".
        #expect(try bible.passage("Romans 16:27").verses.first?.text == "To God only wise, be glory through Jesus Christ for ever. Amen.")
    }

    @Test(needsKJV)
    func translationNameIsCaseInsensitive() throws {
        #expect(try bible.passage("John 3:16", translation: " kjv ").translation == "KJV")
    }

    // MARK: Passages that do not exist

    @Test(needsKJV)
    func missingVerses() {
        // SWORD itself would normalise these into other verses (John 3:99 is John 5:9 to it).
        #expect(throws: BibleError.noSuchPassage("John 3:99")) { try bible.passage("John 3:99") }
        #expect(throws: BibleError.noSuchPassage("John 30:1")) {
            try bible.passage([ScriptureReference(book: "John", chapter: 30, verseStart: 1)])
        }
        #expect(throws: BibleError.noSuchPassage("Psalms 23:5-9")) { try bible.passage("Psalm 23:5-9") }
        #expect(throws: BibleError.noSuchPassage("Psalms 117:3")) { try bible.passage("Psalm 117:3") }
    }

    /// Rejected before SWORD is asked, so these need no module.
    @Test
    func unparseableAndUnknown() {
        #expect(throws: BibleError.noSuchPassage("John 30:1")) { try bible.passage("John 30:1") }
        #expect(throws: BibleError.noSuchPassage("Psalms 23:999")) { try bible.passage("Psalms 23:999") }
        #expect(throws: BibleError.noSuchPassage("not a reference")) { try bible.passage("  not a reference ") }
        #expect(throws: BibleError.noSuchPassage("")) { try bible.passage([]) }
        #expect(throws: BibleError.unknownTranslation("NIV")) { try bible.passage("John 3:16", translation: "NIV") }
        #expect(BibleError.unknownTranslation("NIV").description.contains("KJV, WEB"))
    }

    // MARK: Modules not installed

    /// A directory that is not a SWORD library: every translation is missing, the error names the package, and
    /// nothing is written there (SWORD's flat API would create mods.d/globals.conf).
    @Test
    func translationMissing() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tnotes-bible-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let empty = Bible(modulesPath: directory.path)
        #expect(empty.installedTranslations() == [])
        let error = #expect(throws: BibleError.self) { try empty.passage("John 3:16") }
        #expect(error == .translationMissing(translation: "KJV", package: "sword-text-kjv"))
        #expect(error?.description.contains("sword-text-kjv") == true)
        #expect(throws: BibleError.translationMissing(translation: "WEB", package: "sword-text-web")) {
            try empty.passage("John 3:16", translation: "web")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [])
    }

    /// An empty SWORD library (mods.d/ with no modules). SWORD also reads ~/.sword/mods.d, so this is skipped
    /// where the user has modules of their own there.
    @Test(.enabled(if: !FileManager.default.fileExists(atPath: NSHomeDirectory() + "/.sword/mods.d"),
                   "~/.sword/mods.d would add its modules"))
    func emptyLibrary() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tnotes-bible-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("mods.d"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let empty = Bible(modulesPath: directory.path)
        #expect(empty.installedTranslations() == [])
        #expect(throws: BibleError.translationMissing(translation: "KJV", package: "sword-text-kjv")) {
            try empty.passage("Psalm 23")
        }
    }

    /// The Debian library given explicitly gives the same text as SWORD's default search.
    @Test(needsKJV, .enabled(if: FileManager.default.fileExists(atPath: "/usr/share/sword/mods.d/engKJV2006eb.conf")))
    func explicitModulesPath() throws {
        let explicit = Bible(modulesPath: "/usr/share/sword")
        #expect(try explicit.passage("John 3:16") == bible.passage("John 3:16"))
    }

    // MARK: Concurrency

    /// Many threads on one instance and on several instances at once: SWORD is not thread-safe and its flat
    /// API shares buffers between instances, so this crashes or mixes texts unless every call is serialised.
    @Test(needsKJV)
    func concurrentReaders() async throws {
        let references = ["John 3:16", "Psalm 23", "1 Cor 13:4-7", "Jude 1", "Romans 8:28-39", "Psalm 117"]
        let expected = try references.map { try bible.passage($0) }
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for round in 0..<48 {
                let index = round % references.count
                let reader = round % 3 == 0 ? Bible() : bible
                group.addTask {
                    try reader.passage(references[index]) == expected[index]
                }
            }
            for try await same in group { #expect(same) }
        }
    }

    // MARK: WEB (World English Bible, engWEB2015eb)

    @Test(needsWEB)
    func worldEnglishBible() throws {
        let passage = try bible.passage("Psalm 23:1", translation: "WEB")
        #expect(passage.translation == "WEB")
        // Two poetry lines, joined by one space; the heading "A Psalm by David." is not part of the verse.
        #expect(passage.verses.first?.text == "Yahweh is my shepherd; I shall lack nothing.")
        // The module has no space after a footnote ("Christ,<note>…</note>which"): it is restored.
        #expect(try bible.passage("Rev 1:1", translation: "WEB").verses.first?.text ==
            "This is the Revelation of Jesus Christ, which God gave him to show to his servants the things which must happen soon, which he sent and made known by his angel to his servant, John,")
        // Speaker labels of the Song of Solomon ("Friends", "Beloved") are headings, not text.
        #expect(try bible.passage("Song 5:1", translation: "WEB").verses.first?.text ==
            "I have come into my garden, my sister, my bride. I have gathered my myrrh with my spice; I have eaten my honeycomb with my honey; I have drunk my wine with my milk. Eat, friends! Drink, yes, drink abundantly, beloved.")
        // The module stores its whole glossary after the last verse of Revelation.
        #expect(try bible.passage("Revelation 22:21", translation: "WEB").verses.first?.text ==
            "The grace of the Lord Jesus Christ be with all the saints. Amen.")
    }
}

/// The OSIS clean-up on its own, with markup as the Debian modules have it: no module needed.
@Suite("OSIS to plain text")
struct OSISTextTests {
    private func prepared(_ raw: String) -> String {
        String(decoding: OSISText.prepare(Array(raw.utf8)), as: UTF8.self)
    }

    @Test
    func dropsHeadingsNotesSpeakersAndStrongs() {
        let raw = #"<div type="x-milestone" subType="x-preverse" sID="pv1"/><title canonical="true" type="psalm">A <w lemma="strong:H4210">Psalm</w> of David.</title> <speaker>Beloved</speaker><div type="x-milestone" subType="x-preverse" eID="pv1"/>The <divineName><w lemma="strong:H3068">LORD</w></divineName> is my <w lemma="strong:H7462">shepherd</w>;<note placement="foot"><reference type="annotateRef">23:1 </reference>a <note>nested</note> note</note>"#
        let text = prepared(raw)
        #expect(!text.contains("Psalm") && !text.contains("Beloved") && !text.contains("note") && !text.contains("strong:"))
        #expect(text.contains("The <divineName><w>LORD</w></divineName> is my <w>shepherd</w>;\u{E000}"))
    }

    @Test
    func stopsAtTheEndOfTheChapter() {
        let raw = #"saints. Amen. <chapter eID="Rev.22"/><div eID="x" type="book"/> <title>Glossary</title> Abaddon is Hebrew for destruction."#
        #expect(prepared(raw) == "saints. Amen. ")
    }

    @Test
    func footnoteSpacing() {
        let mark = OSISText.noteMark
        #expect(OSISText.finish("Jesus Christ,\(mark)which God gave") == "Jesus Christ, which God gave")
        #expect(OSISText.finish("his angel\(mark) to his servant") == "his angel to his servant")
        #expect(OSISText.finish("is not puffed up,\(mark)\(mark)") == "is not puffed up,")
        #expect(OSISText.finish("the waters.\(mark)”") == "the waters.”")
        #expect(OSISText.finish("said,\(mark)“Peace") == "said, “Peace")
    }

    @Test
    func pilcrowsWhiteSpaceAndUSFMLeftovers() {
        #expect(OSISText.finish(" ¶ And God said,\n  Let there be light:\t") == "And God said, Let there be light:")
        #expect(OSISText.finish("the \\nd LORD hath sworn") == "the LORD hath sworn")
        #expect(OSISText.finish("the LORD\\+nd* my banner") == "the LORD my banner")
    }
}
