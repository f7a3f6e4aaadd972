import TimelineTestSupport
import Testing
@testable import TimelineCore

private func parseError(_ bytes: [UInt8]) -> JSONParseError? {
    do {
        _ = try JSONParser.parse(bytes)
        return nil
    } catch {
        return error
    }
}

private func parseError(_ text: String) -> JSONParseError? {
    parseError(Array(text.utf8))
}

private func number(_ text: String) -> JSONValue { .number(JSONNumber(text: text)) }

@Suite struct JSONParserTests {
    @Test func valuesOfEveryKind() throws {
        let value = try JSONParser.parse(#" { "a" : [1, -0.5e+3, true, false, null, "x", {}, []], "b":{"c":"d"} } "#)
        #expect(value == .object([
            JSONMember(key: "a", value: .array([
                number("1"), number("-0.5e+3"), .bool(true), .bool(false), .null, .string("x"), .object([]), .array([]),
            ])),
            JSONMember(key: "b", value: .object([JSONMember(key: "c", value: .string("d"))])),
        ]))
    }

    @Test func membersKeepTheirOrderAndRepeats() throws {
        let value = try JSONParser.parse(#"{"z":1,"a":2,"z":3}"#)
        #expect(value == .object([
            JSONMember(key: "z", value: number("1")),
            JSONMember(key: "a", value: number("2")),
            JSONMember(key: "z", value: number("3")),
        ]))
    }

    @Test func everyEscape() throws {
        let value = try JSONParser.parse(#""\"\\\/\b\f\n\r\t\u0000\u00e9\u00E9\u4e2d\ud83d\ude00\uD834\uDD1E""#)
        #expect(value == .string("\"\\/\u{8}\u{C}\n\r\t\u{0}éé中😀𝄞"))
        #expect(Array(try #require(value.stringValue).utf8) == Array("\"\\/\u{8}\u{C}\n\r\t\u{0}éé中😀𝄞".utf8))
    }

    @Test func rawNonASCIIIsKeptByteForByte() throws {
        // "e" + combining acute is canonically equal to "é" but not the same bytes.
        let text = "e\u{301} é 😀 \u{2028} \u{FEFF} \u{10FFFF}"
        var line: [UInt8] = [0x22]
        line += Array(text.utf8)
        line.append(0x22)
        let value = try JSONParser.parse(line)
        #expect(Array(try #require(value.stringValue).utf8) == Array(text.utf8))
    }

    @Test(arguments: [
        (#""\ud83d""#, #"lone surrogate \uD83D (a high surrogate needs a low one after it) at column 2"#),
        (#""\ude00""#, #"lone surrogate \uDE00 (a low surrogate needs a high one before it) at column 2"#),
        (#""\ud83d\u0041""#, #"lone surrogate \uD83D (a high surrogate needs a low one after it) at column 2"#),
        (#""a\ud83dx""#, #"lone surrogate \uD83D (a high surrogate needs a low one after it) at column 3"#),
        (#""\ud83d\ud83d""#, #"lone surrogate \uD83D (a high surrogate needs a low one after it) at column 2"#),
        (#""\x""#, #"invalid escape in a string (allowed: \" \\ \/ \b \f \n \r \t \uXXXX) at column 2"#),
        (#""\u12""#, #"\u must be followed by four hexadecimal digits at column 2"#),
        (#""\u12G4""#, #"\u must be followed by four hexadecimal digits at column 2"#),
        ("\"a\tb\"", "control character U+0009 must be escaped in a string at column 3"),
        (#""abc"#, "unterminated string at column 1"),
        (#"["a\"#, "unterminated string at column 2"),
    ])
    func badStrings(text: String, message: String) {
        #expect(parseError(text)?.description == message)
        #expect(parseError(text)?.kind == .syntax)
    }

    @Test(arguments: [
        ("", "unexpected end of input at column 1"),
        ("   ", "unexpected end of input at column 4"),
        ("{", "unexpected end of input; expected a member name at column 2"),
        (#"{"a""#, #"unexpected end of input; expected ":" after a member name at column 5"#),
        (#"{"a" 1}"#, #"unexpected "1"; expected ":" after a member name at column 6"#),
        (#"{"a":1,}"#, #"unexpected "}"; expected a member name in quotes at column 8"#),
        (#"{"a":1 "b":2}"#, #"unexpected """; expected "," or "}" in an object at column 8"#),
        (#"{a:1}"#, #"unexpected "a"; expected a member name in quotes at column 2"#),
        ("[1,]", #"unexpected "]"; expected a value at column 4"#),
        ("[1 2]", #"unexpected "2"; expected "," or "]" in an array at column 4"#),
        ("[1", #"unexpected end of input; expected "," or "]" in an array at column 3"#),
        (#"{"a":1} x"#, "unexpected text after the JSON value at column 9"),
        (#"{}{}"#, "unexpected text after the JSON value at column 3"),
        ("tru", #"unexpected "t"; expected a value at column 1"#),
        ("nul", #"unexpected "n"; expected a value at column 1"#),
        ("True", #"unexpected "T"; expected a value at column 1"#),
        ("'a'", #"unexpected "'"; expected a value at column 1"#),
        ("\u{1}", "unexpected U+0001; expected a value at column 1"),
        ("é", "unexpected character U+00E9; expected a value at column 1"),
        ("01", "invalid number: leading zeros are not allowed at column 1"),
        ("-01", "invalid number: leading zeros are not allowed at column 2"),
        ("1.", #"invalid number: expected a digit after "." at column 3"#),
        (".5", #"unexpected "."; expected a value at column 1"#),
        ("-", "invalid number: expected a digit at column 2"),
        ("+1", #"unexpected "+"; expected a value at column 1"#),
        ("1e", "invalid number: expected a digit in the exponent at column 3"),
        ("1e+", "invalid number: expected a digit in the exponent at column 4"),
        ("0x1", "unexpected text after the JSON value at column 2"),
        ("NaN", #"unexpected "N"; expected a value at column 1"#),
    ])
    func badSyntax(text: String, message: String) {
        #expect(parseError(text)?.description == message)
    }

    @Test(arguments: ["0", "-0", "12", "-12", "1.5", "1e5", "1E+5", "1e-5", "-0.0e0", "123456789012345678901234567890"])
    func validNumbersAreKeptAsWritten(text: String) throws {
        #expect(try JSONParser.parse(text) == number(text))
    }

    @Test func nonNegativeIntegers() {
        #expect(JSONNumber(text: "0").nonNegativeInteger == 0)
        #expect(JSONNumber(text: "42").nonNegativeInteger == 42)
        #expect(JSONNumber(text: "9223372036854775807").nonNegativeInteger == Int64.max)
        #expect(JSONNumber(text: "9223372036854775808").nonNegativeInteger == nil)
        #expect(JSONNumber(text: "-1").nonNegativeInteger == nil)
        #expect(JSONNumber(text: "-0").nonNegativeInteger == nil)
        #expect(JSONNumber(text: "1.0").nonNegativeInteger == nil)
        #expect(JSONNumber(text: "1e2").nonNegativeInteger == nil)
    }

    @Test(arguments: [
        ([0x22, 0xFF, 0x22], 2),                   // never in UTF-8
        ([0x22, 0x61, 0x80, 0x22], 3),             // stray continuation byte
        ([0x22, 0xC0, 0x80, 0x22], 2),             // overlong NUL
        ([0x22, 0xC1, 0xBF, 0x22], 2),             // overlong
        ([0x22, 0xE0, 0x80, 0x80, 0x22], 2),       // overlong three-byte form
        ([0x22, 0xF0, 0x80, 0x80, 0x80, 0x22], 2), // overlong four-byte form
        ([0x22, 0xED, 0xA0, 0x80, 0x22], 2),       // an encoded surrogate (U+D800)
        ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 2), // above U+10FFFF
        ([0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], 2), // lead byte beyond U+10FFFF
        ([0x22, 0xE2, 0x82, 0x22], 2),             // truncated sequence
        ([0x22, 0xE2, 0x82], 2),                   // truncated at the end of the text
        ([0x7B, 0x7D, 0xFF], 3),                   // outside a string
        ([0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x22, 0xC3], 11), // after an ASCII word
    ] as [([UInt8], Int)])
    func invalidUTF8(bytes: [UInt8], column: Int) {
        let error = parseError(bytes)
        #expect(error == JSONParseError(kind: .invalidUTF8, reason: "invalid UTF-8", column: column))
    }

    @Test(arguments: [
        [0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xEE, 0x80, 0x80],
        [0xEF, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF],
    ] as [[UInt8]])
    func validUTF8AtTheEdges(bytes: [UInt8]) throws {
        let value = try JSONParser.parse([0x22] + bytes + [0x22])
        #expect(Array(try #require(value.stringValue).utf8) == bytes)
    }

    @Test func utf8ValidationAgreesWithTheStandardLibrary() {
        var rng = SplitMix64(seed: 7)
        let interesting: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
                                    0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF]
        for _ in 0..<20_000 {
            let count = Int.random(in: 0...12, using: &rng)
            let bytes = (0..<count).map { _ in interesting.randomElement(using: &rng)! }
            let ours = bytes.withUnsafeBufferPointer { UTF8Validation.firstInvalidOffset($0.baseAddress!, count: $0.count) }
            let standard = String(validating: bytes, as: UTF8.self)
            #expect((ours == nil) == (standard != nil), "\(bytes)")
        }
    }

    @Test func nestingUpToTheLimitIsFine() throws {
        let depth = JSONParser.maximumDepth
        let arrays = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(throws: Never.self) { try JSONParser.parse(arrays) }
        let objects = String(repeating: #"{"a":"#, count: depth - 1) + "{}" + String(repeating: "}", count: depth - 1)
        #expect(throws: Never.self) { try JSONParser.parse(objects) }
    }

    @Test func nestingBeyondTheLimitIsAnError() {
        let depth = JSONParser.maximumDepth + 1
        let arrays = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(parseError(arrays)?.description == "nesting deeper than 64 levels at column 65")
    }

    @Test func hostileNestingIsAnErrorNotACrash() {
        let arrays = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(parseError(arrays)?.description == "nesting deeper than 64 levels at column 65")
        let objects = String(repeating: #"{"a":"#, count: 100_000)
        #expect(parseError(objects)?.description == "nesting deeper than 64 levels at column 321")
        let unclosed = String(repeating: "[", count: 100_000)
        #expect(parseError(unclosed)?.description == "nesting deeper than 64 levels at column 65")
    }
}

extension JSONValue {
    var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }
}
