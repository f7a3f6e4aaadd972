// libFuzzer entry: arbitrary bytes as a whole log (LogReader) and as one line (RecordDecoder),
// whose fast paths must read what the general path reads.
// Built into the TimelineCore module by run.sh; not a SwiftPM target.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLogReader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let contents = try? LogReader().read(bytes) {
        // Whatever was accepted must hang together.
        precondition(contents.records.count == contents.offsets.count)
        precondition(contents.records.count == contents.lineNumbers.count)
        precondition(contents.validLength <= bytes.count)
        for (index, record) in contents.records.enumerated() {
            precondition(record.position == Int64(index + 1))
        }
        _ = try? LogValidator.validate(contents)
    }
    _ = try? RecordDecoder().decode(line: bytes, lineNumber: 1, expectedPosition: 1)
    // A line the fast paths take, the general path takes too, and reads the same.
    bytes.withUnsafeBytes { line in
        if let fast = RecordDecoder().decodeFast(line) {
            precondition((try? RecordDecoder().decodeGeneral(line, lineNumber: 1)) == fast)
        }
    }
    _ = try? RecordDecoder().decode(line: bytes[...], lineNumber: 7, expectedPosition: 7)
    return 0
}
