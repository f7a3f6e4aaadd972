/// A parser for any JSON text (RFC 8259), strict and bounded.
///
/// The whole text must be well-formed UTF-8 and one JSON value, with optional
/// whitespace around it. Strings are unescaped (surrogate pairs joined, lone surrogates
/// refused); numbers are checked against the grammar and kept as text. Arrays and
/// objects may nest at most ``maximumDepth`` deep, so that hostile input is an error
/// and never a stack overflow. Limiting the length of the text is the caller's business.
struct JSONParser {
    /// How deep arrays and objects may nest: `[[1]]` is two levels.
    static let maximumDepth = 64

    private let p: UnsafePointer<UInt8>
    private let n: Int
    private var i = 0

    private init(_ p: UnsafePointer<UInt8>, _ n: Int) {
        self.p = p
        self.n = n
    }

    /// Parses `bytes` as one JSON text.
    static func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONParseError) -> JSONValue {
        guard let base = bytes.baseAddress, !bytes.isEmpty else {
            throw JSONParseError(kind: .syntax, reason: "unexpected end of input", column: 1)
        }
        let p = base.assumingMemoryBound(to: UInt8.self)
        if let offset = UTF8Validation.firstInvalidOffset(p, count: bytes.count) {
            throw JSONParseError(kind: .invalidUTF8, reason: "invalid UTF-8", column: offset + 1)
        }
        var parser = JSONParser(p, bytes.count)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        if parser.i < parser.n { throw parser.error("unexpected text after the JSON value") }
        return value
    }

    /// Parses `bytes` as one JSON text.
    static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        try bytes.withUnsafeBytes { buffer in Result { () throws(JSONParseError) in try parse(buffer) } }.get()
    }

    /// Parses the UTF-8 of `text` as one JSON text.
    static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    private func error(_ reason: String, at offset: Int? = nil) -> JSONParseError {
        JSONParseError(kind: .syntax, reason: reason, column: (offset ?? i) + 1)
    }

    @inline(__always)
    private mutating func skipWhitespace() {
        while i < n {
            switch p[i] {
            case 0x20, 0x09, 0x0A, 0x0D: i += 1
            default: return
            }
        }
    }

    private mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard i < n else { throw error("unexpected end of input") }
        switch p[i] {
        case 0x7B: return try parseObject(depth: depth + 1)
        case 0x5B: return try parseArray(depth: depth + 1)
        case 0x22: return .string(try parseString())
        case 0x74: return try parseLiteral("true", .bool(true))
        case 0x66: return try parseLiteral("false", .bool(false))
        case 0x6E: return try parseLiteral("null", .null)
        case 0x2D, 0x30...0x39: return .number(try parseNumber())
        default: throw error("unexpected \(describeByte(at: i)); expected a value")
        }
    }

    private mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= JSONParser.maximumDepth else {
            throw error("nesting deeper than \(JSONParser.maximumDepth) levels")
        }
        i += 1
        var members: [JSONMember] = []
        skipWhitespace()
        if i < n, p[i] == 0x7D {
            i += 1
            return .object(members)
        }
        while true {
            guard i < n else { throw error("unexpected end of input; expected a member name") }
            guard p[i] == 0x22 else { throw error("unexpected \(describeByte(at: i)); expected a member name in quotes") }
            let key = try parseString()
            skipWhitespace()
            guard i < n else { throw error("unexpected end of input; expected \":\" after a member name") }
            guard p[i] == 0x3A else { throw error("unexpected \(describeByte(at: i)); expected \":\" after a member name") }
            i += 1
            skipWhitespace()
            let value = try parseValue(depth: depth)
            members.append(JSONMember(key: key, value: value))
            skipWhitespace()
            guard i < n else { throw error("unexpected end of input; expected \",\" or \"}\" in an object") }
            switch p[i] {
            case 0x2C:
                i += 1
                skipWhitespace()
            case 0x7D:
                i += 1
                return .object(members)
            default:
                throw error("unexpected \(describeByte(at: i)); expected \",\" or \"}\" in an object")
            }
        }
    }

    private mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= JSONParser.maximumDepth else {
            throw error("nesting deeper than \(JSONParser.maximumDepth) levels")
        }
        i += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if i < n, p[i] == 0x5D {
            i += 1
            return .array(elements)
        }
        while true {
            elements.append(try parseValue(depth: depth))
            skipWhitespace()
            guard i < n else { throw error("unexpected end of input; expected \",\" or \"]\" in an array") }
            switch p[i] {
            case 0x2C:
                i += 1
                skipWhitespace()
            case 0x5D:
                i += 1
                return .array(elements)
            default:
                throw error("unexpected \(describeByte(at: i)); expected \",\" or \"]\" in an array")
            }
        }
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        let start = i + 1
        switch JSONStringScanner.scan(p, count: n, from: start) {
        case .success(let span):
            i = span.end + 1
            return JSONStringScanner.makeString(p, from: start, to: span.end, hasEscapes: span.hasEscapes)
        case .failure(let failure):
            throw error(failure.reason, at: failure.offset)
        }
    }

    private mutating func parseLiteral(_ word: StaticString, _ value: JSONValue) throws(JSONParseError) -> JSONValue {
        let length = word.utf8CodeUnitCount
        let start = i
        for k in 0..<length {
            guard i + k < n, p[i + k] == word.utf8Start[k] else {
                throw error("unexpected \(describeByte(at: start)); expected a value", at: start)
            }
        }
        i += length
        return value
    }

    private mutating func parseNumber() throws(JSONParseError) -> JSONNumber {
        let start = i
        @inline(__always) func isDigit(_ j: Int) -> Bool { j < n && p[j] >= 0x30 && p[j] <= 0x39 }
        if p[i] == 0x2D { i += 1 }
        guard isDigit(i) else { throw error("invalid number: expected a digit") }
        if p[i] == 0x30 {
            i += 1
            if isDigit(i) { throw error("invalid number: leading zeros are not allowed", at: i - 1) }
        } else {
            while isDigit(i) { i += 1 }
        }
        if i < n, p[i] == 0x2E {
            i += 1
            guard isDigit(i) else { throw error("invalid number: expected a digit after \".\"") }
            while isDigit(i) { i += 1 }
        }
        if i < n, p[i] == 0x65 || p[i] == 0x45 {
            i += 1
            if i < n, p[i] == 0x2B || p[i] == 0x2D { i += 1 }
            guard isDigit(i) else { throw error("invalid number: expected a digit in the exponent") }
            while isDigit(i) { i += 1 }
        }
        return JSONNumber(text: String(decoding: UnsafeBufferPointer(start: p + start, count: i - start), as: UTF8.self))
    }

    /// `"x"` for a printable ASCII byte, `U+0001` for a control character, or the
    /// character that starts at `offset`.
    private func describeByte(at offset: Int) -> String {
        let byte = p[offset]
        if byte >= 0x20, byte < 0x7F { return "\"\(Character(Unicode.Scalar(byte)))\"" }
        if byte < 0x80 { return JSONStringScanner.hex4(UInt16(byte)) }
        var end = offset + 1
        while end < n, p[end] & 0xC0 == 0x80 { end += 1 }
        let text = String(decoding: UnsafeBufferPointer(start: p + offset, count: end - offset), as: UTF8.self)
        let digits = String(text.unicodeScalars.first!.value, radix: 16, uppercase: true)
        return "character U+" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
