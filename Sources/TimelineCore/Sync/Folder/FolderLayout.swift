/// The layout of a shared folder (section 10, "Folder mode"; layout 1): every file has one
/// writer and never changes once sealed.
///
///     DIR/timeline-folder.json                       the layout: {"layout":1} (the sequencer)
///     DIR/log/F-L.seg                                the shared log's records F…L (the sequencer)
///     DIR/devices/D/F-L-NF-NL.seg                    device D's submissions F…L (device D)
///
/// `F` and `L` have 12 decimal digits; `NF` and `NL` are the nonces of submissions `F`
/// and `L`: a copy of a device restored from a backup never names a file as the other copy
/// does, unless with the same contents (it made the same submissions before the backup). A
/// segment is a header line, its body (one line each) and a seal line:
///
///     {"segment":"log","layout":1,"first":F,"last":L}
///     …the shared log's lines F…L, byte for byte…
///     {"seal":N,"crc32c":"xxxxxxxx"}
///
/// or, for submissions, `{"segment":"submissions","layout":1,"device":"D","first":F,
/// "last":L,"prev":"NONCE"|null}` then one submission per line; `prev` is the nonce of the
/// device's submission `F - 1` as the writer knew it (`null` for `F = 1`): the sequencer
/// follows one copy's chain. The seal gives the body's line count and the CRC-32C of every
/// byte before the seal line. A reader takes a file only when its name, header and seal
/// agree; anything else (a file half copied, a temporary, a conflicted copy, a name of
/// another layout) is skipped, and read again later.
package enum FolderLayout {
    /// The layout this version writes and reads.
    package static let version = 1
    /// The file that names the layout.
    package static let layoutFile = "timeline-folder.json"
    /// The directory of the shared log's segments.
    package static let logDirectory = "log"
    /// The directory that holds one directory per device.
    package static let devicesDirectory = "devices"
    /// At most this many records in one published segment (a clone of a large log reads
    /// many files, each small enough for a sync service to copy in one go).
    package static let recordsPerSegment = 10_000

    /// The directory of device `device`'s segments.
    package static func deviceDirectory(_ device: DeviceID) -> String { devicesDirectory + "/" + device.rawValue }

    /// The name of a published segment of records `first…last`.
    package static func logSegmentName(first: Int64, last: Int64) -> String { digits(first) + "-" + digits(last) + ".seg" }

    /// The name of a device's segment of `submissions` (numbers in order, no gaps).
    package static func submissionSegmentName(_ submissions: [Submission]) -> String {
        let first = submissions[0], last = submissions[submissions.count - 1]
        return digits(first.id.number) + "-" + digits(last.id.number) + "-" + first.nonce + "-" + last.nonce + ".seg"
    }

    private static func digits(_ value: Int64) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, 12 - text.count)) + text
    }

    /// The range a published segment's name gives, or `nil` for any other name.
    package static func logSegmentRange(_ name: String) -> ClosedRange<Int64>? {
        let parts = name.utf8.split(separator: 0x2D, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].count == 16, parts[1].suffix(4).elementsEqual(".seg".utf8),
              let first = number(parts[0]), let last = number(parts[1].prefix(12)), first <= last else { return nil }
        return first...last
    }

    /// The range and the first and last nonces a device segment's name gives, or `nil` for
    /// any other name.
    package static func submissionSegment(_ name: String) -> (range: ClosedRange<Int64>, nonces: (String, String))? {
        let parts = name.utf8.split(separator: 0x2D, omittingEmptySubsequences: false)
        guard parts.count == 4, parts[2].count == 32, parts[3].count == 36, parts[3].suffix(4).elementsEqual(".seg".utf8),
              let first = number(parts[0]), let last = number(parts[1]), first <= last else { return nil }
        let nonces = [parts[2], parts[3].prefix(32)]
        guard nonces.allSatisfy({ $0.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) } }) else {
            return nil
        }
        return (first...last, (String(decoding: nonces[0], as: UTF8.self), String(decoding: nonces[1], as: UTF8.self)))
    }

    private static func number(_ digits: some Collection<UInt8>) -> Int64? {
        guard digits.count == 12, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int64(String(decoding: digits, as: UTF8.self))
    }

    /// The layout file's contents.
    package static var layoutFileContents: [UInt8] { Array("{\"layout\":\(version)}\n".utf8) }

    /// The layout a layout file names, or `nil` when it names none.
    package static func layout(in bytes: [UInt8]) -> Int? {
        guard case .object(let members)? = try? JSONParser.parse(bytes),
              case .number(let number)? = members.first(where: { $0.key == "layout" })?.value else { return nil }
        return Int(number.text)
    }

    // MARK: Segments

    /// `header`, `body` (whole lines) and the seal that closes them.
    package static func seal(header: String, body: [UInt8], lines: Int) -> [UInt8] {
        var bytes = Array((header + "\n").utf8)
        bytes += body
        let crc = CRC32C.checksum(bytes)
        let hex = String(crc, radix: 16)
        bytes += Array("{\"seal\":\(lines),\"crc32c\":\"\(String(repeating: "0", count: 8 - hex.count) + hex)\"}\n".utf8)
        return bytes
    }

    /// A sealed file's header members and body, or `nil` when it is not whole: no seal
    /// line, another count of lines, another checksum.
    static func unseal(_ bytes: [UInt8]) -> (header: [JSONMember], body: ArraySlice<UInt8>)? {
        guard bytes.last == 0x0A, let sealStart = bytes.dropLast().lastIndex(of: 0x0A).map({ $0 + 1 }),
              let headerEnd = bytes.firstIndex(of: 0x0A), headerEnd < sealStart,
              case .object(let seal)? = try? JSONParser.parse(Array(bytes[sealStart..<(bytes.count - 1)])),
              case .number(let count)? = seal.first(where: { $0.key == "seal" })?.value,
              case .string(let crc)? = seal.first(where: { $0.key == "crc32c" })?.value,
              let expected = UInt32(crc, radix: 16), CRC32C.checksum(bytes[..<sealStart]) == expected,
              case .object(let header)? = try? JSONParser.parse(Array(bytes[..<headerEnd])) else { return nil }
        let body = bytes[(headerEnd + 1)..<sealStart]
        guard Int(count.text) == body.reduce(0, { $0 + ($1 == 0x0A ? 1 : 0) }) else { return nil }
        return (header, body)
    }

    /// A published segment of records `first…last`: the shared log's lines as it holds them.
    package static func logSegment(first: Int64, last: Int64, lines: [UInt8]) -> [UInt8] {
        seal(header: "{\"segment\":\"log\",\"layout\":\(version),\"first\":\(first),\"last\":\(last)}", body: lines,
             lines: Int(last - first + 1))
    }

    /// The records and lines of a published segment named for `range`, or `nil` when it
    /// is not a whole, sealed segment of those records.
    package static func readLogSegment(_ bytes: [UInt8], range: ClosedRange<Int64>) -> (records: [Record], lines: ArraySlice<UInt8>, offsets: [Int])? {
        guard let (header, body) = unseal(bytes), member(header, "segment") == .string("log"),
              member(header, "layout") == .number(JSONNumber(text: String(version))),
              member(header, "first") == .number(JSONNumber(text: String(range.lowerBound))),
              member(header, "last") == .number(JSONNumber(text: String(range.upperBound))) else { return nil }
        let start = LogReader.Start(position: range.lowerBound - 1, line: 0, offset: 0)
        guard let contents = try? body.withUnsafeBytes({ bytes throws(LogReader.Failure) in
            try LogReader().read(bytes, after: start)
        }), contents.tornTail == nil, contents.records.count == Int(range.count) else { return nil }
        return (contents.records, body, contents.offsets)
    }

    /// A device's segment of `submissions` (numbers in order, no gaps), after the
    /// submission whose nonce was `previous`.
    package static func submissionSegment(_ submissions: [Submission], previous: String?) -> [UInt8] {
        let first = submissions[0].id
        var body: [UInt8] = []
        for submission in submissions {
            var sent = submission
            sent.localID = nil  // the app's own id never leaves the device
            body += Array((SyncCoding.json(sent) + "\n").utf8)
        }
        let header = "{\"segment\":\"submissions\",\"layout\":\(version),\"device\":\(JSONStringWriter.quoted(first.device.rawValue)),"
            + "\"first\":\(first.number),\"last\":\(submissions[submissions.count - 1].id.number),\"prev\":"
            + (previous.map(JSONStringWriter.quoted) ?? "null") + "}"
        return seal(header: header, body: body, lines: submissions.count)
    }

    /// The submissions of a device segment named for `range` and `nonces` in device
    /// `device`'s directory, and the nonce each comes after, or `nil` when it is not a
    /// whole, sealed segment of those submissions.
    package static func readSubmissionSegment(_ bytes: [UInt8], device: DeviceID, range: ClosedRange<Int64>,
                                              nonces: (String, String)) -> [(submission: Submission, previous: String?)]? {
        guard let (header, body) = unseal(bytes), member(header, "segment") == .string("submissions"),
              member(header, "layout") == .number(JSONNumber(text: String(version))),
              member(header, "device") == .string(device.rawValue),
              member(header, "first") == .number(JSONNumber(text: String(range.lowerBound))),
              member(header, "last") == .number(JSONNumber(text: String(range.upperBound))) else { return nil }
        var previous: String?
        switch member(header, "prev") {
        case .string(let text)?: previous = text
        case .null?: guard range.lowerBound == 1 else { return nil }
        default: return nil
        }
        var result: [(submission: Submission, previous: String?)] = []
        for line in body.split(separator: 0x0A) {
            guard let submission = try? SyncCoding.submission(String(decoding: line, as: UTF8.self)),
                  submission.id.device == device,
                  submission.id.number == range.lowerBound + Int64(result.count) else { return nil }
            result.append((submission, previous))
            previous = submission.nonce
        }
        guard result.count == range.count, result[0].submission.nonce == nonces.0,
              result[result.count - 1].submission.nonce == nonces.1 else { return nil }
        return result
    }

    private static func member(_ members: [JSONMember], _ key: String) -> JSONValue? {
        members.first { $0.key == key }?.value
    }
}
