/// Text as HTML or XML character data or attribute values (a summary before Ink reads it, the feed's text): the five
/// special characters as references, and what neither the W3C validator nor an XML parser accepts left out
/// (control characters but tab and line feed, U+FFFE and U+FFFF). A carriage return is dropped too: a line ends
/// with a line feed.
enum MarkupText {
    static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count + 16)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\t", "\n": out.unicodeScalars.append(scalar)
            default:
                let v = scalar.value
                if v < 0x20 || (0x7F...0x9F).contains(v) || v == 0xFFFE || v == 0xFFFF { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
