/// How many cells of a terminal text takes: CJK ideographs, kana, Hangul, fullwidth forms
/// and emoji take two, combining marks and format characters none, the rest one.
///
/// Counted per grapheme cluster (a Swift `Character`), so that a letter with its accents,
/// a flag or an emoji sequence joined by U+200D counts once. Text is expected without
/// control characters (``displayText(_:)`` escapes them first).
enum DisplayWidth {
    /// The cells `text` takes.
    static func of(_ text: String) -> Int {
        // Printable ASCII, most text in a table, is one cell a byte.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text.utf8.count }
        var width = 0
        for character in text { width += of(character) }
        return width
    }

    /// The cells the UTF-8 text `bytes` takes.
    static func of(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Int {
        // Printable ASCII and letters up to U+02FF (Latin with its accents precomposed,
        // IPA), one cell a character: lead bytes 0xC2–0xCB. Combining marks start at U+0300.
        var width = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte >= 0x20 && byte < 0x7F {
                index += 1
            } else if byte >= 0xC2, byte <= 0xCB, index + 1 < bytes.count, bytes[index + 1] & 0xC0 == 0x80 {
                index += 2
            } else {
                return of(String(decoding: bytes, as: UTF8.self))
            }
            width += 1
        }
        return width
    }

    /// The cells one grapheme cluster takes: 0, 1 or 2.
    static func of(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if first.isASCII { return first.value >= 0x20 && first.value != 0x7F ? 1 : 0 }
        var width = 0
        for scalar in scalars {
            // An emoji presentation selector makes a text-style symbol (☺︎) an emoji.
            if scalar.value == 0xFE0F || isWide(scalar) { return 2 }
            if width == 0 && !isZeroWidth(scalar) { width = 1 }
        }
        return width
    }

    /// Wide (W) or fullwidth (F) in Unicode's East Asian Width, or shown as an emoji.
    static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x1100 { return false }
        if scalar.properties.isEmojiPresentation { return true }
        for range in wideRanges where range.contains(value) { return true }
        return false
    }

    /// A combining mark, a format character (U+200B–U+200F, U+2060, …) or a variation
    /// selector: drawn on the cell before it, or not at all.
    static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
        // The soft hyphen is a format character that terminals draw as a hyphen (as
        // `wcwidth` counts it: one cell).
        if scalar.value == 0xAD { return false }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return true
        default: return (0xFE00...0xFE0F).contains(scalar.value) || (0x1160...0x11FF).contains(scalar.value)
        }
    }

    /// The blocks of East Asian Width W and F outside emoji (which ``isWide(_:)`` finds by
    /// their property), in order.
    static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F,  // Hangul Jamo initial consonants
        0x2329...0x232A,  // angle brackets
        0x2E80...0x303E,  // CJK radicals, Kangxi radicals, CJK symbols and punctuation
        0x3041...0x33FF,  // Hiragana, Katakana, Bopomofo, Hangul compatibility Jamo, CJK compatibility
        0x3400...0x4DBF,  // CJK unified ideographs extension A
        0x4E00...0x9FFF,  // CJK unified ideographs
        0xA000...0xA4CF,  // Yi
        0xA960...0xA97F,  // Hangul Jamo extended A
        0xAC00...0xD7A3,  // Hangul syllables
        0xF900...0xFAFF,  // CJK compatibility ideographs
        0xFE10...0xFE19,  // vertical forms
        0xFE30...0xFE6F,  // CJK compatibility forms, small form variants
        0xFF00...0xFF60,  // fullwidth forms
        0xFFE0...0xFFE6,  // fullwidth signs
        0x16FE0...0x16FE4, 0x17000...0x18CFF,  // Tangut
        0x1B000...0x1B2FF,  // kana supplement and extensions, Nüshu
        0x1F200...0x1F2FF,  // enclosed ideographic supplement
        0x20000...0x2FFFD,  // CJK extensions B–F, compatibility supplement
        0x30000...0x3FFFD,  // CJK extensions G–H
    ]

    /// `text` cut to at most `width` cells, ending in "…" when something was cut.
    ///
    /// An escape of a cell (`\n`, `\u{202e}`, see `displayText`) is kept whole or left
    /// out: cut inside, `\u{202` would read as another character.
    static func truncate(_ text: String, to width: Int) -> String {
        guard of(text) > width else { return text }
        guard width > 0 else { return "" }
        let characters = Array(text)
        var result = ""
        var used = 0
        var index = 0
        while index < characters.count {
            let end = escapeEnd(in: characters, at: index) ?? index + 1
            let unit = characters[index..<end]
            let cells = unit.reduce(0) { $0 + of($1) }
            if used + cells > width - 1 { break }
            result.append(contentsOf: unit)
            used += cells
            index = end
        }
        return result + "…"
    }

    /// Where the escape that starts at `index` ends (`\n`, `\r`, `\t`, `\u{` hex digits `}`),
    /// if one does.
    private static func escapeEnd(in characters: [Character], at index: Int) -> Int? {
        guard characters[index] == "\\", index + 1 < characters.count else { return nil }
        switch characters[index + 1] {
        case "n", "r", "t": return index + 2
        case "u":
            guard index + 2 < characters.count, characters[index + 2] == "{" else { return nil }
            var end = index + 3
            while end < characters.count, characters[end].isHexDigit { end += 1 }
            guard end > index + 3, end < characters.count, characters[end] == "}" else { return nil }
            return end + 1
        default: return nil
        }
    }
}
