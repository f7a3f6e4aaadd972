@testable import TimelineCore

/// A date value from text known to be valid.
func day(_ text: String) throws -> DateValue {
    try DateValue(parsing: text)
}

/// The fast path alone.
func decodeFast(_ line: [UInt8]) -> DecodedLine? {
    line.withUnsafeBytes { RecordDecoder().decodeFast($0) }
}

/// The general path alone.
func decodeGeneral(_ line: [UInt8], lineNumber: Int = 1) throws(RecordError) -> DecodedLine {
    try line.withUnsafeBytes { bytes in
        Result { () throws(RecordError) in try RecordDecoder().decodeGeneral(bytes, lineNumber: lineNumber) }
    }.get()
}

/// The general path alone.
func decodeGeneral(_ line: String, lineNumber: Int = 1) throws(RecordError) -> DecodedLine {
    try decodeGeneral(Array(line.utf8), lineNumber: lineNumber)
}

/// The error that decoding `line` throws, or `nil` if it decodes.
func decodingError(_ line: [UInt8], lineNumber: Int = 1, expectedPosition: Int64 = 1) -> RecordError? {
    do {
        _ = try RecordDecoder().decode(line: line, lineNumber: lineNumber, expectedPosition: expectedPosition)
        return nil
    } catch {
        return error
    }
}

/// The error that decoding `line` throws, or `nil` if it decodes.
func decodingError(_ line: String, lineNumber: Int = 1, expectedPosition: Int64 = 1) -> RecordError? {
    decodingError(Array(line.utf8), lineNumber: lineNumber, expectedPosition: expectedPosition)
}

/// The store's line for `record`, as text.
func storeLine(_ record: Record) -> String {
    String(decoding: RecordEncoder().encode(record), as: UTF8.self)
}
