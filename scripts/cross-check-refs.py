#!/usr/bin/env python3
"""Reads written Bible references on stdin, one per line; prints, per line, the references pythonbible finds
in it as one JSON line, in the shape of TNotesScripture's ScriptureReference.

An independent parser for ScriptureReferenceTests.testCrossCheckAgainstPythonbible. Test-only:
`pip install pythonbible` (written against pythonbible 0.15.5, whose API is
`pythonbible.get_references(text)` -> [NormalizedReference(book, start_chapter, start_verse, end_chapter,
end_verse, end_book)], with `book` a `pythonbible.Book` enum numbered 1..66 in Protestant canonical order and
higher for the Apocrypha).

Output per input line: a JSON array of objects
  {"book": str, "chapter": int|null, "verseStart": int|null, "verseEnd": int|null, "spanEnd": [c, v]|null}
converted to TNotesScripture's representation so that the two can be compared as values:
  - a single verse has verseEnd null (pythonbible repeats the start verse as the end);
  - a range of whole chapters ("John 3-4") becomes one whole-chapter reference per chapter, and "John 3-4:2"
    becomes John 3 plus John 4:1-2;
  - a verse range across chapters ("John 3:16-4:2") keeps its start (verseEnd null) and puts the end in
    spanEnd, as ScriptureMatch.spanEnd does;
  - a bare book name without chapter ("Mark" in "Mark my words") is kept with chapter null: TNotesScripture
    never reports one, and the test drops these;
  - a book outside the 66 (Apocrypha) or a range across books keeps pythonbible's title and "crossBook".
"""
import json
import sys

# Canonical names of TNotesScripture's BibleBooks.all, in pythonbible's Book order (values 1..66).
CANONICAL = [
    "Genesis", "Exodus", "Leviticus", "Numbers", "Deuteronomy", "Joshua", "Judges", "Ruth", "1 Samuel",
    "2 Samuel", "1 Kings", "2 Kings", "1 Chronicles", "2 Chronicles", "Ezra", "Nehemiah", "Esther", "Job",
    "Psalms", "Proverbs", "Ecclesiastes", "Song of Solomon", "Isaiah", "Jeremiah", "Lamentations", "Ezekiel",
    "Daniel", "Hosea", "Joel", "Amos", "Obadiah", "Jonah", "Micah", "Nahum", "Habakkuk", "Zephaniah", "Haggai",
    "Zechariah", "Malachi", "Matthew", "Mark", "Luke", "John", "Acts", "Romans", "1 Corinthians",
    "2 Corinthians", "Galatians", "Ephesians", "Philippians", "Colossians", "1 Thessalonians", "2 Thessalonians",
    "1 Timothy", "2 Timothy", "Titus", "Philemon", "Hebrews", "James", "1 Peter", "2 Peter", "1 John", "2 John",
    "3 John", "Jude", "Revelation",
]


def book_name(book):
    return CANONICAL[book.value - 1] if 1 <= book.value <= len(CANONICAL) else book.title


def ref(book, chapter, verse_start=None, verse_end=None, span_end=None, **extra):
    out = {"book": book, "chapter": chapter, "verseStart": verse_start, "verseEnd": verse_end, "spanEnd": span_end}
    out.update(extra)
    return out


def convert(r):
    book = book_name(r.book)
    if r.end_book is not None and r.end_book != r.book:
        return [ref(book, r.start_chapter, r.start_verse, None, [r.end_chapter, r.end_verse],
                    crossBook=book_name(r.end_book))]
    if r.start_chapter is None:
        return [ref(book, None)]
    end_chapter = r.end_chapter or r.start_chapter
    if r.start_verse is None:
        if r.end_verse is None:
            return [ref(book, c) for c in range(r.start_chapter, end_chapter + 1)]
        last = r.end_verse
        return [ref(book, c) for c in range(r.start_chapter, end_chapter)] + \
               [ref(book, end_chapter, 1, last if last > 1 else None)]
    if end_chapter == r.start_chapter:
        end = r.end_verse if r.end_verse is not None and r.end_verse != r.start_verse else None
        return [ref(book, r.start_chapter, r.start_verse, end)]
    return [ref(book, r.start_chapter, r.start_verse, None, [end_chapter, r.end_verse])]


def main():
    try:
        import pythonbible
    except ImportError:
        print("pythonbible is not installed: pip install pythonbible", file=sys.stderr)
        return 2
    for line in sys.stdin:
        text = line.rstrip("\n")
        refs = []
        for r in pythonbible.get_references(text):
            refs.extend(convert(r))
        print(json.dumps(refs), flush=False)
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
