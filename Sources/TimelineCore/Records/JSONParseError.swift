/// Why a text is not valid JSON, and where: the rule it breaks and the byte column.
struct JSONParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Whether the text breaks the JSON grammar or is not UTF-8 at all.
    enum Kind: Hashable, Sendable {
        /// The bytes are UTF-8 but not JSON.
        case syntax
        /// The bytes are not well-formed UTF-8.
        case invalidUTF8
    }

    /// Whether the text breaks the JSON grammar or is not UTF-8 at all.
    var kind: Kind
    /// The rule broken, such as `expected ":" after an object key`.
    var reason: String
    /// The 1-based byte column where the problem was found.
    var column: Int

    /// `expected ":" after an object key at column 12`.
    var description: String { "\(reason) at column \(column)" }
}
