/// Cardinal numbers written in words, as speech-to-text writes them: "sixteen", "twenty three",
/// "twenty-three", "one hundred nineteen", "one hundred and five". 1...999 is all a chapter or verse needs.
enum NumberWords {
    static let units: [String: Int] = [
        "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    ]
    static let teens: [String: Int] = [
        "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
        "seventeen": 17, "eighteen": 18, "nineteen": 19,
    ]
    static let tens: [String: Int] = [
        "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
    ]

    /// The number spelled from `tokens[index]` on, read greedily, and the index after it.
    ///
    /// Greedy on purpose: "twenty three" is 23 (not 20 then 3), and "one hundred nineteen" is 119. A units word
    /// ends a number unless "hundred" follows, so "three sixteen" reads as 3 then 16 and "one one" as 1 then 1,
    /// which is how chapter and verse are spoken. "and" is part of a number only after "hundred", so "verses one
    /// and two" stays two numbers.
    static func read(_ tokens: [Token], at index: Int) -> (value: Int, next: Int)? {
        guard index < tokens.count, tokens[index].kind == .word else { return nil }
        if let hundreds = units[tokens[index].text], index + 1 < tokens.count, tokens[index + 1].isWord("hundred") {
            var next = index + 2
            var value = hundreds * 100
            if next < tokens.count, tokens[next].isWord("and"), let rest = belowHundred(tokens, at: next + 1) {
                value += rest.value
                next = rest.next
            } else if let rest = belowHundred(tokens, at: next) {
                value += rest.value
                next = rest.next
            }
            return (value, next)
        }
        return belowHundred(tokens, at: index)
    }

    /// 1...99: "seven", "seventeen", "seventy", "seventy seven", "seventy-seven".
    private static func belowHundred(_ tokens: [Token], at index: Int) -> (value: Int, next: Int)? {
        guard index < tokens.count, tokens[index].kind == .word else { return nil }
        let word = tokens[index].text
        if let ten = tens[word] {
            let next = index + 1
            if next < tokens.count, tokens[next].kind == .word, let unit = units[tokens[next].text] {
                return (ten + unit, next + 1)
            }
            // "twenty-three": the dash touches both words (a spaced dash is a range: "twenty - three").
            if next + 1 < tokens.count, tokens[next].isPunct("-"), !tokens[next].spaced, !tokens[next + 1].spaced,
               tokens[next + 1].kind == .word, let unit = units[tokens[next + 1].text] {
                return (ten + unit, next + 2)
            }
            return (ten, next)
        }
        if let teen = teens[word] { return (teen, index + 1) }
        if let unit = units[word] { return (unit, index + 1) }
        return nil
    }
}
