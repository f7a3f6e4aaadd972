import Testing
@testable import TimelineCore

/// Seeded random runs of appends, resends, conflicts, reopenings and crashes in the
/// middle of a write: after every reopen the log holds exactly the acknowledged records
/// (those of each append that returned), byte for byte, and nothing else.
@Suite struct FileEventLogPropertyTests {
    @Test(arguments: (1...8).map { 0x106_0000 + UInt64($0) })
    func theLogHoldsExactlyTheAcknowledgedRecords(seed: UInt64) throws {
        var random = RandomRecords(seed: seed)
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            var acknowledged: [Record] = []
            var commands: [(id: String, records: [Record])] = []
            var log = try FileEventLog(path: path)
            defer { log.close() }

            func check(_ log: FileEventLog, _ step: Int) throws {
                #expect(log.position == Int64(acknowledged.count), "step \(step)")
                #expect(try log.records(after: 0) == acknowledged, "step \(step)")
                #expect(fileBytes(path) == storeBytes(acknowledged), "step \(step)")
                #expect(try FileEventLog.read(path: path).records == acknowledged, "step \(step)")
                for (id, records) in commands {
                    #expect(try log.records(forCommandID: id) == records, "step \(step): command \(id)")
                }
            }

            func randomBatch(commandID: String?) throws -> (facts: [Fact], options: AppendOptions) {
                let facts = try (0..<Int.random(in: 1...4, using: &random.rng)).map { _ in try random.fact() }
                let at = Bool.random(using: &random.rng) ? try random.date() : nil
                return (facts, AppendOptions(commandID: commandID, recordedAt: at))
            }

            for step in 0..<60 {
                switch Int.random(in: 0..<10, using: &random.rng) {
                case 0..<5:
                    let id = Bool.random(using: &random.rng) ? "cmd-\(step)" : nil
                    var (facts, options) = try randomBatch(commandID: id)
                    if Bool.random(using: &random.rng) { options.expectedPosition = Int64(acknowledged.count) }
                    let result = try log.append(facts, options: options)
                    let expected = batch(facts, after: Int64(acknowledged.count), recordedAt: options.recordedAt,
                                         commandID: id)
                    #expect(result == AppendResult(records: expected, wasDuplicate: false), "step \(step)")
                    acknowledged += result.records
                    if let id { commands.append((id, result.records)) }
                case 5:
                    guard let command = commands.randomElement(using: &random.rng) else { continue }
                    let (facts, options) = try randomBatch(commandID: command.id)
                    #expect(try log.append(facts, options: options)
                        == AppendResult(records: command.records, wasDuplicate: true), "step \(step)")
                case 6:
                    // A writer that read the log at another position is refused and writes nothing.
                    let position = Int64(acknowledged.count)
                    var stale = Int64.random(in: 0...(position + 3), using: &random.rng)
                    if stale == position { stale += 1 }
                    var (facts, options) = try randomBatch(commandID: "refused-\(step)")
                    options.expectedPosition = stale
                    #expect(throws: EventLogError.conflict(expected: stale, actual: position), "step \(step)") {
                        try log.append(facts, options: options)
                    }
                case 7:
                    log.close()
                    log = try FileEventLog(path: path)
                    #expect(log.tornTail == nil, "step \(step)")
                    try check(log, step)
                default:
                    // A crash in the middle of an append: part of a batch reaches the file.
                    log.close()
                    let id = "torn-\(step)"
                    let (facts, options) = try randomBatch(commandID: id)
                    let records = batch(facts, after: Int64(acknowledged.count), recordedAt: options.recordedAt,
                                        commandID: id)
                    let bytes = storeBytes(records)
                    // Anywhere, but often where it is hardest to tell: at the end of a
                    // line of the batch, or just before the batch's final newline.
                    let lineEnds = bytes.indices.filter { bytes[$0] == 0x0A }.map { $0 + 1 }
                    let cut = switch Int.random(in: 0..<4, using: &random.rng) {
                    case 0: bytes.count - 1
                    case 1: lineEnds.dropLast().randomElement(using: &random.rng) ?? 0
                    default: Int.random(in: 0..<bytes.count, using: &random.rng)
                    }
                    try appendToFile(path, Array(bytes.prefix(cut)))
                    let validLength = storeBytes(acknowledged).count
                    log = try FileEventLog(path: path)
                    if cut == bytes.count - 1 {
                        // Only the final newline is missing: the whole batch reached the
                        // file, as when a crash comes after the write but before the answer.
                        #expect(log.tornTail == nil, "step \(step)")
                        acknowledged += records
                        commands.append((id, records))
                    } else if cut == 0 {
                        #expect(log.tornTail == nil, "step \(step)")
                    } else {
                        #expect(log.tornTail?.offset == validLength, "step \(step)")
                        #expect(log.tornTail?.length == cut, "step \(step)")
                    }
                    try check(log, step)
                }
            }
            log.close()
            log = try FileEventLog(path: path)
            try check(log, 60)
        }
    }
}
