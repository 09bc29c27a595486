@testable import TNotesProcessing

/// A sermon on Romans 8 and forgiveness as a speech-to-text engine would return it: segments of 5–10 s that
/// sometimes hold two sentences and sometimes half of one, with gaps where the excerpt skips ahead.
enum SermonFixture {
    static let title = "No Condemnation: Forgiven and Free"
    static let speaker = "Pastor Daniel Reyes"

    static let segments: [TimedSegment] = [
        .init(start: 0.0, end: 7.5, text: "Good morning, church. Please open your Bibles to Romans chapter 8."),
        .init(start: 7.5, end: 15.2, text: "We have spent six weeks walking through this letter, and today we reach the summit."),
        .init(start: 15.2, end: 23.9, text: "Romans 8:1 says, there is therefore now no condemnation for those who are in Christ Jesus."),
        .init(start: 23.9, end: 31.0, text: "Now notice the word therefore. Paul is drawing a conclusion from everything before it."),
        .init(start: 31.0, end: 40.4, text: "For seven chapters he has shown us that every one of us stands guilty before a holy God."),
        .init(start: 40.4, end: 49.8, text: "And then, in a single sentence, the verdict is overturned."),
        .init(start: 49.8, end: 58.1, text: "Condemnation is a courtroom word. It means the judge has declared you guilty and the sentence"),
        .init(start: 58.1, end: 63.0, text: "must now be carried out."),
        .init(start: 63.0, end: 72.6, text: "But Paul says that for those in Christ, the sentence has already been carried out on the cross."),
        .init(start: 72.6, end: 80.2, text: "That is why forgiveness is not God looking the other way."),
        .init(start: 80.2, end: 90.5, text: "Forgiveness is God dealing with sin completely, in Christ, so that he can welcome you completely."),
        .init(start: 95.0, end: 104.3, text: "Some of you came in this morning carrying a weight you have carried for years."),
        .init(start: 104.3, end: 112.8, text: "You have confessed that sin a hundred times and you still do not believe you are forgiven."),
        .init(start: 112.8, end: 121.0, text: "Hear me: if God has forgiven you, you are not more righteous than God when you refuse to forgive yourself."),
        .init(start: 121.0, end: 130.6, text: "Verse 15 tells us we did not receive a spirit of slavery to fall back into fear."),
        .init(start: 130.6, end: 141.2, text: "We received the Spirit of adoption, by whom we cry, Abba, Father. That is Romans 8:15."),
        .init(start: 141.2, end: 150.0, text: "Adoption means you are not a forgiven criminal on probation; you are a son or daughter at the table."),
        .init(start: 150.0, end: 158.4, text: "A pardoned prisoner is free, but an adopted child is loved and belongs."),
        .init(start: 158.4, end: 166.9, text: "The Spirit himself bears witness with our spirit that we are children of God."),
        .init(start: 240.0, end: 249.3, text: "Now let me turn to the hardest part of forgiveness, which is forgiving other people."),
        .init(start: 249.3, end: 258.0, text: "Peter once asked Jesus how many times he should forgive his brother, seven times?"),
        .init(start: 258.0, end: 266.2, text: "Jesus answered, not seven times, but seventy-seven times, Matthew 18:22."),
        .init(start: 266.2, end: 275.7, text: "He was not giving Peter a bigger number to count to. He was telling Peter to stop counting."),
        .init(start: 275.7, end: 285.1, text: "The people who have been forgiven much are the people who can forgive much."),
        .init(start: 285.1, end: 294.4, text: "Ephesians 4:32 tells us to be kind to one another, forgiving each other, as God in Christ forgave you."),
        .init(start: 294.4, end: 303.0, text: "Forgiving someone does not mean pretending the wound was small."),
        .init(start: 303.0, end: 312.5, text: "It means handing the debt to God and refusing to collect it yourself."),
        .init(start: 312.5, end: 321.9, text: "Bitterness is like drinking poison and waiting for the other person to get sick."),
        .init(start: 321.9, end: 330.0, text: "Forgiveness does not always restore trust immediately, and it does not excuse abuse."),
        .init(start: 330.0, end: 338.8, text: "But it does release you from the prison of replaying the offence over and over."),
        .init(start: 420.0, end: 430.2, text: "Verse 28 is perhaps the most quoted verse in this chapter."),
        .init(start: 430.2, end: 440.5, text: "And we know that for those who love God all things work together for good, Romans 8:28."),
        .init(start: 440.5, end: 449.0, text: "It does not say all things are good. Cancer is not good. Betrayal is not good."),
        .init(start: 449.0, end: 458.7, text: "It says God works in all things, even the ones that broke our hearts, for the good of his children."),
        .init(start: 458.7, end: 467.9, text: "And the good he is working toward is defined in verse 29: to be conformed to the image of his Son."),
        .init(start: 540.0, end: 549.6, text: "Paul ends the chapter with a question: who shall separate us from the love of Christ?"),
        .init(start: 549.6, end: 559.8, text: "Neither death nor life, nor angels nor rulers, nor things present nor things to come."),
        .init(start: 559.8, end: 569.0, text: "Nothing in all creation can separate us from the love of God in Christ Jesus our Lord, Romans 8:38-39."),
        .init(start: 569.0, end: 578.3, text: "So this week, I want you to name one person you need to forgive, and bring that name to God in prayer."),
        .init(start: 578.3, end: 586.0, text: "You are forgiven, you are adopted, and you are loved. Let us pray."),
    ]

    static let notes: [TimedNote] = [
        .init(timestamp: 118, text: "Refusing to forgive myself = thinking I'm more righteous than God"),
        .init(timestamp: 272, text: "Stop counting! Matthew 18:22"),
        .init(timestamp: 310, text: "Forgiveness = handing the debt over to God"),
        .init(timestamp: 575, text: "Name one person to forgive this week. Colossians 3:13"),
    ]

    static var sermon: SermonText {
        SermonText(title: title, speaker: speaker, transcriptText: segments.map(\.text).joined(separator: " "),
                   segments: segments, notes: notes)
    }

    /// The segments as an engine without punctuation or digits returns them: lowercase words only.
    static var unpunctuatedSegments: [TimedSegment] {
        segments.map {
            let words = $0.text.lowercased().filter { $0.isLetter || $0 == " " }.split(separator: " ")
            return TimedSegment(start: $0.start, end: $0.end, text: words.joined(separator: " "))
        }
    }

    /// Reference displays the test closure recognises.
    static let knownReferences = ["Romans 8:1", "Romans 8:15", "Romans 8:28", "Romans 8:38-39", "Matthew 18:22",
                                  "Ephesians 4:32", "Colossians 3:13"]

    /// A stand-in for the scripture module's detector: the known references found in `text` in reading order.
    /// A match must not run on into more digits or a range, so "Romans 8:1" is not found inside "Romans 8:15".
    @Sendable static func references(in text: String) -> [String] {
        var found: [(offset: Int, ref: String)] = []
        let chars = Array(text)
        for ref in knownReferences {
            let r = Array(ref)
            guard chars.count >= r.count else { continue }
            for i in 0...(chars.count - r.count) where Array(chars[i..<(i + r.count)]) == r {
                let after = i + r.count < chars.count ? chars[i + r.count] : " "
                if !after.isNumber && after != "-" { found.append((i, ref)) }
            }
        }
        return found.sorted { $0.offset != $1.offset ? $0.offset < $1.offset : $0.ref < $1.ref }.map(\.ref)
    }

    /// An hour-long sermon of about 9,000 words in 600 segments, generated deterministically (a fixed LCG) from
    /// the fixture's vocabulary, with punctuation every dozen words or so and a note every three minutes.
    static func hour(punctuated: Bool = true) -> SermonText {
        let vocabulary = segments.flatMap { $0.text.split(separator: " ").map { String($0.filter { $0.isLetter }) } }
            .filter { !$0.isEmpty }
        var state: UInt64 = 0x2545F4914F6CDD1D
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        var segs: [TimedSegment] = []
        for s in 0..<600 {
            var words: [String] = []
            for w in 0..<15 {
                // Skewed choice (min of two draws) gives a Zipf-like spread: some words recur, most are rare.
                var word = vocabulary[min(next(vocabulary.count), next(vocabulary.count))].lowercased()
                if w == 0 { word = word.prefix(1).uppercased() + word.dropFirst() }
                if punctuated, w == 14 || (w == 6 && next(3) == 0) { word += "." }
                words.append(word)
            }
            segs.append(TimedSegment(start: Double(s) * 6, end: Double(s) * 6 + 5.8, text: words.joined(separator: " ")))
        }
        let notes = (0..<20).map { TimedNote(timestamp: Double($0) * 180 + 30, text: "note \($0) about forgiveness and adoption") }
        return SermonText(title: "An hour", speaker: nil, segments: segs, notes: notes)
    }
}
