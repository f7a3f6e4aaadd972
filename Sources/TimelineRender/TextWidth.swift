/// How wide a line of text is, estimated without a font engine, so that a layout is the
/// same everywhere.
///
/// The widths are those of DejaVu Sans, the widest of the usual sans-serif fonts (it is
/// what `system-ui` is on many Linux systems), plus a little: text measured here takes
/// at most this room in any of the fonts the picture asks for.
enum TextWidth {
    /// The width of `text` at `size` pixels.
    static func of<S: StringProtocol>(_ text: S, size: Double) -> Double {
        var ems = 0.0
        for scalar in text.unicodeScalars { ems += width(of: scalar) }
        return ems * size * 1.02
    }

    /// `text` if it fits in `room` pixels at `size`; else its longest beginning that fits
    /// with "…" after it; `nil` when fewer than two characters would be left.
    static func fitted(_ text: String, room: Double, size: Double) -> (text: String, elided: Bool)? {
        if of(text, size: size) <= room { return (text, false) }
        let ellipsis = of("…", size: size)
        var kept = ""
        var used = ellipsis
        var characters = 0
        for character in text {
            let width = of(String(character), size: size)
            guard used + width <= room else { break }
            kept.append(character)
            used += width
            characters += 1
        }
        while let last = kept.last, last == " " { kept.removeLast() }
        guard characters >= 2, !kept.isEmpty else { return nil }
        return (kept + "…", true)
    }

    /// The advance of one scalar in ems.
    static func width(of scalar: Unicode.Scalar) -> Double {
        let value = scalar.value
        if value < 0x80 { return ascii[Int(value)] }
        switch value {
        case 0x0300...0x036F, 0x200B...0x200F, 0x2066...0x2069, 0xFE00...0xFE0F: return 0  // combining marks, zero widths, isolates
        case 0x2026: return 1.0  // …
        case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFF00...0xFF60: return 1.0
        case 0x1F000...: return 1.25  // emoji and other pictographs
        default: return 0.7
        }
    }

    /// Printable ASCII in ems (DejaVu Sans); control characters take no room.
    private static let ascii: [Double] = {
        var table = [Double](repeating: 0, count: 128)
        let rows: [(String, Double)] = [
            (" ", 0.318), ("!", 0.401), ("\"", 0.460), ("#", 0.838), ("$", 0.636), ("%", 0.950), ("&", 0.780),
            ("'", 0.275), ("()", 0.390), ("*", 0.500), ("+", 0.838), (",.", 0.318), ("-", 0.361), ("/", 0.337),
            ("0123456789", 0.636), (":;", 0.337), ("<=>", 0.838), ("?", 0.531), ("@", 1.000),
            ("A", 0.684), ("B", 0.686), ("C", 0.698), ("D", 0.770), ("E", 0.632), ("F", 0.575), ("G", 0.775),
            ("H", 0.752), ("IJ", 0.295), ("K", 0.656), ("L", 0.557), ("M", 0.863), ("N", 0.748), ("O", 0.787),
            ("P", 0.603), ("Q", 0.787), ("R", 0.695), ("S", 0.635), ("T", 0.611), ("U", 0.732), ("V", 0.684),
            ("W", 0.989), ("X", 0.685), ("Y", 0.611), ("Z", 0.685), ("[]", 0.390), ("\\", 0.337), ("^", 0.838),
            ("_", 0.500), ("`", 0.500), ("a", 0.613), ("bdgpq", 0.635), ("c", 0.550), ("e", 0.615),
            ("f", 0.352), ("hnu", 0.634), ("ijl", 0.278), ("k", 0.579), ("m", 0.974), ("o", 0.612),
            ("r", 0.411), ("s", 0.521), ("t", 0.392), ("vxy", 0.592), ("w", 0.818), ("z", 0.525),
            ("{}", 0.636), ("|", 0.337), ("~", 0.838),
        ]
        for (characters, width) in rows {
            for scalar in characters.unicodeScalars { table[Int(scalar.value)] = width }
        }
        return table
    }()
}

extension String {
    /// The text between a first-strong isolate and a pop directional isolate (U+2068,
    /// U+2069): its direction is its own and does not reach the text around it, so that
    /// the count or the dates written after a right-to-left name stay after it (unisolated,
    /// the bidirectional algorithm draws a number after Hebrew or Arabic text before it).
    ///
    /// The text's own explicit embeddings, overrides and isolates are balanced first, as
    /// Unicode's bidirectional algorithm matches them: a closing mark with nothing open is
    /// left out, and whatever is left open (a shortened text may have lost its closing
    /// marks) is closed at the end, so that nothing inside reaches the text after it.
    /// - Complexity: O(*n*) for *n* scalars.
    var directionIsolated: String {
        var result = "\u{2068}"
        // What is open, innermost last: `true` for an isolate, `false` for an embedding or override.
        var open: [Bool] = []
        for scalar in unicodeScalars {
            switch scalar.value {
            case 0x202A, 0x202B, 0x202D, 0x202E: open.append(false)  // LRE, RLE, LRO, RLO
            case 0x2066...0x2068: open.append(true)  // LRI, RLI, FSI
            case 0x202C:  // PDF: closes an embedding opened inside the innermost isolate
                guard open.last == false else { continue }
                open.removeLast()
            case 0x2069:  // PDI: closes the innermost isolate and whatever it holds open
                guard let isolate = open.lastIndex(of: true) else { continue }
                open.removeSubrange(isolate...)
            default: break
            }
            result.unicodeScalars.append(scalar)
        }
        for isolate in open.reversed() { result.unicodeScalars.append(isolate ? "\u{2069}" : "\u{202C}") }
        result.unicodeScalars.append("\u{2069}")
        return result
    }
}
