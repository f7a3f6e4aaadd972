import Foundation

/// The replay baseline: the log split into lines, each decoded by one `JSONDecoder` into
/// a ``CodableRecord``, the records kept in an array as the record reader keeps its own.
enum JSONDecoderBaseline {
    /// Decodes every line of `bytes`; returns how many records it decoded.
    static func decodeLines(_ bytes: [UInt8]) throws -> Int {
        let decoder = JSONDecoder()
        var records: [CodableRecord] = []
        try bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var start = 0
            while start < raw.count {
                let end = memchr(base + start, 0x0A, raw.count - start).map { UnsafeRawPointer($0) - base } ?? raw.count
                if end > start {
                    let line = Data(bytes: base + start, count: end - start)
                    records.append(try decoder.decode(CodableRecord.self, from: line))
                }
                start = end + 1
            }
        }
        return records.count
    }
}
