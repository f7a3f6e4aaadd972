import TimelineTestSupport
import TimelineCore

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
