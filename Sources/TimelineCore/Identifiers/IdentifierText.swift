/// The rules every identifier's text follows: equality, hashing and validity by UTF-8 bytes.
///
/// Two ids are the same only when their UTF-8 bytes are equal. Swift's `String` compares
/// by canonical equivalence (`"\u{E9}" == "e\u{301}"`), which would make two ids that the
/// log, the row order and the checkpoints keep apart one id to the decider; nothing here
/// normalises text.
@usableFromInline
package enum IdentifierText {
    /// The longest id accepted, in UTF-8 bytes.
    package static let maximumBytes = 255

    /// Whether the two texts have the same UTF-8 bytes.
    /// - Complexity: O(*m*) for texts of *m* bytes; O(1) when their lengths differ.
    @inlinable
    package static func sameBytes(_ a: String, _ b: String) -> Bool {
        let first = a.utf8, second = b.utf8
        let count = first.count
        guard count == second.count else { return false }
        let compared = first.withContiguousStorageIfAvailable { mine in
            second.withContiguousStorageIfAvailable { theirs in
                count == 0 || memcmpBytes(mine.baseAddress!, theirs.baseAddress!, count) == 0
            }
        }
        if let compared, let same = compared { return same }
        return first.elementsEqual(second)
    }

    /// Feeds the text's UTF-8 bytes, and a terminator, to `hasher`: texts with the same
    /// bytes hash alike (see ``sameBytes(_:_:)``).
    /// - Complexity: O(*m*) for a text of *m* bytes.
    @inlinable
    package static func hash(_ text: String, into hasher: inout Hasher) {
        let utf8 = text.utf8
        let hashed: Void? = utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if hashed == nil { for byte in utf8 { hasher.combine(byte) } }
        // A terminator, so that a sequence of texts hashes apart from their concatenation.
        hasher.combine(0xFF as UInt8)
    }

    /// The rule `text` breaks as an id, or `nil` for a valid id: 1–255 bytes of UTF-8, no
    /// control character (U+0000–U+001F, U+007F–U+009F) anywhere, no whitespace (Unicode
    /// `White_Space`, per code point) at either end.
    /// - Complexity: O(*m*) for a text of *m* bytes.
    package static func problem(in text: String) -> Rejection.IdentifierProblem? {
        let utf8 = text.utf8
        let count = utf8.count
        if count == 0 { return .empty }
        if count > maximumBytes { return .tooLong(bytes: count) }
        // Nearly every id is printable ASCII with no space at either end: bytes alone say so.
        let printableASCII = utf8.withContiguousStorageIfAvailable { bytes in
            bytes[0] != 0x20 && bytes[count - 1] != 0x20 && bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
        }
        if printableASCII == true { return nil }
        let scalars = text.unicodeScalars
        if let control = scalars.first(where: isControl) { return .controlCharacter(control) }
        if let first = scalars.first, first.properties.isWhitespace { return .whitespaceAtStart(first) }
        if let last = scalars.last, last.properties.isWhitespace { return .whitespaceAtEnd(last) }
        return nil
    }

    /// Whether a scalar is a control character: C0 (U+0000–U+001F), DEL or C1 (U+007F–U+009F).
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// The text in double quotes, with `"` and `\` escaped and every control character
    /// and every whitespace other than U+0020 written as `\u{…}`, so that a message shows
    /// exactly which code points an id holds.
    package static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case " ": result += " "
            default:
                if isControl(scalar) || scalar.properties.isWhitespace {
                    result += "\\u{" + String(scalar.value, radix: 16) + "}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}

/// A command id as a dictionary key: the same key only when the UTF-8 bytes are equal,
/// as for timeline and event ids (a `String` key would take canonically equivalent
/// command ids for one, and answer one command with another's records).
package struct CommandKey: Hashable, Sendable {
    /// The command id.
    package let text: String

    /// The key of the command id `text`.
    package init(_ text: String) { self.text = text }

    package static func == (lhs: CommandKey, rhs: CommandKey) -> Bool { IdentifierText.sameBytes(lhs.text, rhs.text) }

    package func hash(into hasher: inout Hasher) { IdentifierText.hash(text, into: &hasher) }
}
