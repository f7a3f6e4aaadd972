/// A JSON value (RFC 8259) as parsed from text by ``JSONParser``.
///
/// Objects keep their members in the order written, duplicates included, so that a
/// reader can decide what a repeated name means (the record reader rejects repeats of
/// the members it knows).
enum JSONValue: Hashable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, kept as written.
    case number(JSONNumber)
    /// A string, unescaped.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object: its members in the order written.
    case object([JSONMember])

    /// What kind of value this is, for messages: `null`, `a number`, `an object`, ….
    var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// One member of a JSON object: a name and its value.
struct JSONMember: Hashable, Sendable {
    /// The member's name, unescaped.
    var key: String
    /// The member's value.
    var value: JSONValue
}

/// A JSON number, kept as the text that was written so that no precision is lost.
struct JSONNumber: Hashable, Sendable {
    /// The number's text; the parser only makes numbers from text that follows the
    /// JSON grammar: `-? (0 | [1-9][0-9]*) (\.[0-9]+)? ([eE][+-]?[0-9]+)?`.
    var text: String

    /// The value when the text is a non-negative integer written without sign,
    /// fraction or exponent (`0`, `42`) that fits in an `Int64`; `nil` otherwise
    /// (`-1`, `1.0`, `1e3`, `9223372036854775808`).
    var nonNegativeInteger: Int64? {
        var value: Int64 = 0
        var any = false
        for byte in text.utf8 {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int64(byte - 0x30))
            if overflow1 || overflow2 { return nil }
            value = sum
            any = true
        }
        return any ? value : nil
    }

    /// The nearest `Double` to the number.
    var doubleValue: Double { Double(text) ?? .nan }
}
