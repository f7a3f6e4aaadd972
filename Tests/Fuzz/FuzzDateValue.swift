// libFuzzer entry: arbitrary bytes as the text of a date (DateValue(parsing:)).
// Built into the TimelineCore module by run.sh; not a SwiftPM target.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDateValue(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let date = try? DateValue(parsing: text) {
        // A parsed date prints as text that parses back to the same date.
        let again = try? DateValue(parsing: date.text)
        precondition(again == date, "\(text) -> \(date.text) does not round-trip")
    }
    return 0
}
