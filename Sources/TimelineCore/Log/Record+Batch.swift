extension Record {
    /// The records of one appended batch: one per fact, at the positions after `position`,
    /// each with the batch's time, its command id and how many records of the batch follow it.
    ///
    /// A batch of one fact (most commands) gives its record `facts` itself, not a copy in
    /// an array of its own, so that it allocates and copies nothing. Only an array with
    /// storage for at most two facts is kept so, since a log keeps its records: a caller's
    /// array with more storage reserved is copied.
    ///
    /// `inspect` sees each record as it is made, with its index in the batch, on the thread
    /// that made it (records of a big batch are made at the same time, in any order): a
    /// log checks them there, while they are at hand, rather than reading them all again.
    /// - Complexity: O(*k*) for *k* facts.
    package static func batch(of facts: [Fact], after position: Int64, options: AppendOptions,
                              inspecting inspect: (@Sendable (Int, Record) -> Void)? = nil) -> [Record] {
        if facts.count == 1 && facts.capacity <= 2 {
            let record = Record(position: position + 1, facts: facts, recordedAt: options.recordedAt,
                                commandID: options.commandID, batchRemainder: 0)
            inspect?(0, record)
            return [record]
        }
        // An import's million records (each with an array of its own) are made on every processor.
        let parts = facts.count < recordsPerPart ? 1 : (facts.count + recordsPerPart - 1) / recordsPerPart
        return concurrentArray(count: facts.count, parts: parts) { offset in
            let record = Record(position: position + Int64(offset) + 1, fact: facts[offset], recordedAt: options.recordedAt,
                                commandID: options.commandID, batchRemainder: facts.count - offset - 1)
            inspect?(offset, record)
            return record
        }
    }

    /// How many records each part of a big batch holds, made at the same time.
    private static let recordsPerPart = 16_384
}
