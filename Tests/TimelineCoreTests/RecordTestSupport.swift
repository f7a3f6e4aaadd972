@testable import TimelineCore

/// A date value from text known to be valid.
func day(_ text: String) throws -> DateValue {
    try DateValue(parsing: text)
}

/// The store's line for `record`, as text.
func storeLine(_ record: Record) -> String {
    String(decoding: RecordEncoder().encode(record), as: UTF8.self)
}
