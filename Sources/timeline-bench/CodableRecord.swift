/// A log line as a Codable struct: what an app would hand to Foundation's `JSONDecoder`.
///
/// It reads every member the store writes but checks less than the record reader (no
/// checksum, no date parsing, no domain rules), so the baseline errs in its own favour.
struct CodableRecord: Decodable {
    struct Data: Decodable {
        var event: String?
        var timeline: String?
        var title: String?
        var name: String?
        var date: String?
        var start: String?
        var end: String?
    }

    var seq: Int64?
    var type: String
    var data: Data
    var at: String?
    var v: Int?
    var cmd: String?
    var more: Int?
    var crc: String?
}
