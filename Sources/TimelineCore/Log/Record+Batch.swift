extension Record {
    /// The records of one appended batch: one per fact, at the positions after `position`,
    /// each with the batch's time, its command id and how many records of the batch follow it.
    ///
    /// A batch of one fact (most commands) gives its record `facts` itself, not a copy in
    /// an array of its own, so that it allocates and copies nothing. Only an array with
    /// storage for at most two facts is kept so, since a log keeps its records: a caller's
    /// array with more storage reserved is copied.
    /// - Complexity: O(*k*) for *k* facts.
    package static func batch(of facts: [Fact], after position: Int64, options: AppendOptions) -> [Record] {
        if facts.count == 1 && facts.capacity <= 2 {
            return [Record(position: position + 1, facts: facts, recordedAt: options.recordedAt,
                           commandID: options.commandID, batchRemainder: 0, submission: options.submission,
                           undoes: options.undoes)]
        }
        let batch = RecordBatch(facts: facts, after: position, options: options)
        // An import's million records (each with an array of its own) are made on every processor.
        let parts = facts.count < recordsPerPart ? 1 : (facts.count + recordsPerPart - 1) / recordsPerPart
        return concurrentArray(count: facts.count, parts: parts) { batch.record(at: $0) }
    }

    /// How many records each part of a big batch holds, made at the same time.
    private static let recordsPerPart = 16_384
}

/// An appended batch described by its facts and where it starts, its records made only
/// when asked for: a file log encodes an import's million lines from the facts, without
/// making a record (and an array of one fact) for each.
package struct RecordBatch: Sendable, Hashable {
    /// The batch's facts, one per record, in order.
    package var facts: [Fact]
    /// The position before the batch's first record.
    package var position: Int64
    /// The batch's time and command id.
    package var options: AppendOptions

    /// Describes the batch of `facts` appended after `position` with `options`.
    package init(facts: [Fact], after position: Int64, options: AppendOptions) {
        self.facts = facts
        self.position = position
        self.options = options
    }

    /// The number of records.
    package var count: Int { facts.count }

    /// The positions of the batch's records; `nil` for a batch of no facts.
    package var positions: ClosedRange<Int64>? {
        facts.isEmpty ? nil : (position + 1)...(position + Int64(facts.count))
    }

    /// The position of the record of the fact at `offset`.
    package func position(at offset: Int) -> Int64 { position + Int64(offset) + 1 }

    /// How many records of the batch follow the one at `offset` (its `more`).
    package func remainder(at offset: Int) -> Int { facts.count - offset - 1 }

    /// The record of the fact at `offset`.
    /// - Complexity: O(1).
    package func record(at offset: Int) -> Record {
        Record(position: position(at: offset), fact: facts[offset], recordedAt: options.recordedAt,
               commandID: options.commandID, batchRemainder: remainder(at: offset), submission: options.submission,
               undoes: options.undoes)
    }

    /// Every record of the batch (``Record/batch(of:after:options:)``).
    /// - Complexity: O(*k*) for *k* facts.
    package var records: [Record] { Record.batch(of: facts, after: position, options: options) }
}

extension RandomAccessCollection where Element == Record, Index == Int {
    /// How many of the first records form the whole atomic batches that end at or before
    /// `position`: a state that was committed, never one inside a batch (`--upto`).
    /// - Complexity: O(*n*) for the *n* records at or before `position`.
    package func committedCount(upTo position: Int64) -> Int {
        var end = 0
        for index in indices {
            let record = self[index]
            guard record.position <= position else { break }
            if record.batchRemainder == 0 { end = index - startIndex + 1 }
        }
        return end
    }
}
