import SystemShim
import TimelineCore
import TimelineTestSupport


/// Writes a log of years of use: the lasting timelines, then commands of the history
/// mix — every kind of fact the decider accepts — one atomic batch per command, in the
/// store's layout (with `at`, some `cmd` ids, `more` for two-fact batches, checksums), and
/// optionally the same records in the hand-written layout.
struct GeneratedLog {
    var records = 0
    var bytes = 0
    var events = 0
    var factCounts: [FactType: Int] = [:]

    /// How the mix of fact types came out, most frequent first: `eventAdded 47%, …`.
    var mixDescription: String {
        factCounts.sorted { $0.value > $1.value }.map { type, count in
            let percent = Double(count) * 100 / Double(max(records, 1))
            return type.rawValue + " " + (percent >= 1 ? String(Int(percent.rounded())) : "<1") + "%"
        }.joined(separator: ", ")
    }

    /// A log of at least `records` records of the history mix.
    static func history(records target: Int, seed: UInt64, dates: DatePool, storePath: String,
                        handWrittenPath: String?) -> GeneratedLog {
        var model = WorkloadModel(seed: seed, dates: dates)
        var commands = model.createPermanentTimelines()
        return write(storePath: storePath, handWrittenPath: handWrittenPath, seed: seed) { count in
            if !commands.isEmpty { return commands.removeFirst() }
            guard count < target else { return nil }
            return model.next(.history)
        } events: { model.eventCount }
    }

    /// A store's log that leaves `events` events alive: the lasting timelines and events
    /// added with the usual mix of single dates, closed and open ranges.
    static func events(_ target: Int, seed: UInt64, dates: DatePool, storePath: String) -> GeneratedLog {
        var model = WorkloadModel(seed: seed, dates: dates)
        var commands = model.createPermanentTimelines()
        return write(storePath: storePath, handWrittenPath: nil, seed: seed) { _ in
            if !commands.isEmpty { return commands.removeFirst() }
            guard model.eventCount < target else { return nil }
            commands = model.populate(rows: model.rowCount + 1)
            return commands.removeFirst()
        } events: { model.eventCount }
    }

    private static func write(storePath: String, handWrittenPath: String?, seed: UInt64,
                              next: (Int) -> Command?, events: () -> Int) -> GeneratedLog {
        var log = GeneratedLog()
        var rng = SplitMix64(seed: seed ^ 0xA5A5)
        let encoder = RecordEncoder(layout: .store)
        let store = FileWriter(path: storePath)
        let handWritten = handWrittenPath.map { FileWriter(path: $0) }
        // Recorded over the years: a few seconds to a few hours between commands.
        var clock: Int64 = 1_420_070_400_000_000
        var commandNumber = 0
        while let command = next(log.records) {
            commandNumber += 1
            clock += Int64(1 + rng.below(14_400)) * 1_000_000
            let at = DateValue(utc: Instant(microsecondsSinceEpoch: clock))
            let commandID: String? = rng.chance(10) ? "cmd-" + String(commandNumber, radix: 16) : nil
            let facts = CommandFacts.facts(of: command)
            for (offset, fact) in facts.enumerated() {
                log.records += 1
                log.factCounts[fact.type, default: 0] += 1
                let record = Record(position: Int64(log.records), fact: fact, recordedAt: at, commandID: commandID,
                                    batchRemainder: facts.count - offset - 1)
                store.append { encoder.encode(record, into: &$0) }
                handWritten?.append { HandWrittenLayout.write(record, into: &$0) }
            }
        }
        store.close()
        handWritten?.close()
        log.bytes = store.bytesWritten
        log.events = events()
        return log
    }
}


/// Writes records as a person or another program might: no checksum, no `v`, `cmd` or
/// `more`, members in another order than the store's, spaces after colons and commas,
/// `seq` left out on every third line, `at` now and then. Only the reader's general
/// path accepts these lines.
enum HandWrittenLayout {
    static func write(_ record: Record, into buffer: inout [UInt8]) {
        let fact = record.facts[0]
        let variant = record.position % 3
        func text(_ string: String) { buffer += Array(string.utf8) }
        func member(_ name: String, _ value: String, last: Bool = false) {
            text("\"\(name)\": ")
            quote(value, into: &buffer)
            if !last { text(", ") }
        }
        text(variant == 0 ? "{ " : "{")
        if variant == 1 { text("\"seq\": \(record.position), ") }
        text("\"data\": {")
        writeData(fact, member)
        text("}, ")
        if variant == 2, let at = record.recordedAt { member("at", at.text) }
        text("\"type\": ")
        quote(fact.type.rawValue, into: &buffer)
        if variant == 0 { text(", \"seq\": \(record.position) }  ") } else { text("}") }
        buffer.append(0x0A)
    }

    /// The data members in reverse of the contract's order.
    private static func writeData(_ fact: Fact, _ member: (String, String, Bool) -> Void) {
        switch fact {
        case .timelineCreated(let timeline, let name), .timelineRenamed(let timeline, let name):
            member("name", name, false); member("timeline", timeline.rawValue, true)
        case .timelineRemoved(let timeline):
            member("timeline", timeline.rawValue, true)
        case .eventAdded(let event, let timeline, let title, let date):
            member("date", date.text, false); member("title", title, false)
            member("timeline", timeline.rawValue, false); member("event", event.rawValue, true)
        case .eventRetitled(let event, let title):
            member("title", title, false); member("event", event.rawValue, true)
        case .dateSet(let event, let date):
            member("date", date.text, false); member("event", event.rawValue, true)
        case .rangeSet(let event, let start, let end):
            if let end { member("end", end.text, false) }
            member("start", start.text, false); member("event", event.rawValue, true)
        case .rangeClosed(let event, let end):
            member("end", end.text, false); member("event", event.rawValue, true)
        case .rangeReopened(let event), .eventRemoved(let event):
            member("event", event.rawValue, true)
        case .eventMoved(let event, let timeline):
            member("timeline", timeline.rawValue, false); member("event", event.rawValue, true)
        case .commandRejected(let command, let rule, let message):
            member("message", message, false); member("rule", rule, false); member("command", command, true)
        }
    }
}

extension HandWrittenLayout {
    /// A JSON string: quotes, backslashes and control characters escaped, the rest raw UTF-8.
    static func quote(_ string: String, into buffer: inout [UInt8]) {
        buffer.append(0x22)
        for byte in string.utf8 {
            switch byte {
            case 0x22: buffer += [0x5C, 0x22]
            case 0x5C: buffer += [0x5C, 0x5C]
            case 0x0A: buffer += [0x5C, 0x6E]
            case ..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                buffer += [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            default: buffer.append(byte)
            }
        }
        buffer.append(0x22)
    }
}


/// Writes a large file through a buffer of a few megabytes, so generating a log of a
/// million lines never holds it all in memory.
final class FileWriter {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private(set) var bytesWritten = 0
    private static let flushSize = 4 << 20

    init(path: String) {
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        precondition(descriptor >= 0, "cannot create \(path): errno \(errno)")
        buffer.reserveCapacity(Self.flushSize + 4096)
    }

    /// Gives `body` the buffer to append to; flushes when it is full.
    func append(_ body: (inout [UInt8]) -> Void) {
        body(&buffer)
        if buffer.count >= Self.flushSize { flush() }
    }

    func flush() {
        Self.writeAll(buffer, to: descriptor)
        bytesWritten += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }

    func close() {
        flush()
        _ = Glibc.close(descriptor)
    }

    /// Writes all of `bytes` to `descriptor`.
    static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + done, $0.count - done) }
            if n < 0, errno == EINTR { continue }
            precondition(n > 0, "cannot write: errno \(errno)")
            done += n
        }
    }

    /// The whole content of the file at `path`.
    static func readAll(_ path: String) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        precondition(descriptor >= 0, "cannot open \(path): errno \(errno)")
        defer { _ = Glibc.close(descriptor) }
        var info = stat()
        precondition(fstat(descriptor, &info) == 0, "cannot stat \(path)")
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, $0.count - done, off_t(done)) }
            if n < 0, errno == EINTR { continue }
            precondition(n > 0, "cannot read \(path): errno \(errno)")
            done += n
        }
        return bytes
    }
}

