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
                           commandID: options.commandID, batchRemainder: 0)]
        }
        var records: [Record] = []
        records.reserveCapacity(facts.count)
        for (offset, fact) in facts.enumerated() {
            records.append(Record(position: position + Int64(offset) + 1, fact: fact, recordedAt: options.recordedAt,
                                  commandID: options.commandID, batchRemainder: facts.count - offset - 1))
        }
        return records
    }
}
