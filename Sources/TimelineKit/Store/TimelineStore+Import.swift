import TimelineCore

extension TimelineStore {
    /// Checks facts from elsewhere (another log, an export) against the store's state and
    /// appends all of them as one atomic batch, or none; returns what was appended. A big
    /// batch's records are made from the facts only when read: an import into an empty
    /// file log, whose fold the store takes, needs only their positions (into a log with
    /// records, the store applies them, which makes them).
    ///
    /// Each fact is checked in the state after the store's records and the facts before it,
    /// so an import may create a timeline and then add events to it. A refused fact throws
    /// ``StoreError/importRefused(index:line:type:rejection:)`` naming its index (and its
    /// entry of `lines`, when given) and the rule, and nothing is appended. An accepted
    /// import is appended, projected and published like a batch sent with `send`: one change
    /// set per changed view, a reset for a view it changes by more rows than the
    /// projection animates. An empty import appends nothing and returns no records.
    ///
    /// The facts are checked under the log's lock, after the records other processes
    /// appended, so they are appended at the position they were checked at.
    ///
    /// Every imported record is recorded now: its `at` is the store's clock at the import,
    /// one time for the whole batch, as for a batch of commands. The times the facts carried
    /// where they came from are not kept: a log appends a batch with one time
    /// (``AppendOptions/recordedAt``), so keeping one per fact would change every log's append.
    ///
    /// - Parameters:
    ///   - facts: the facts to import, in order.
    ///   - lines: where each fact came from (for example its line in the foreign log),
    ///     named in a refusal; one entry per fact (another count throws
    ///     ``StoreError/linesDoNotMatchFacts(lines:facts:)``), or `nil`.
    ///   - folded: the caller's projection of `facts` folded, in order and checked
    ///     against the rules, from an empty state (the tool makes one as it reads a log into
    ///     a new store). While the log is still empty when the batch is decided, under its
    ///     lock, the facts are not checked twice, and the store takes that projection
    ///     (moved to the batch's positions, with the store's views) instead of applying them
    ///     again; its subscribers get a reset. Otherwise the facts are checked and applied.
    /// - Complexity: O(*k* log *n*) for *k* facts and *n* rows; the state is not copied.
    @discardableResult
    ///   - commandID: the import's command id: an import with an id already in the log
    ///     appends nothing and returns the records of the first time
    ///     (``AppendResult/wasDuplicate``); ``ImportDigest`` makes one from the facts.
    package func importFacts(_ facts: [Fact], lines: [Int]? = nil, commandID: String? = nil,
                             foldedOnAnEmptyLog folded: consuming TimelineProjection? = nil)
        throws(StoreError) -> AppendResult {
        if let lines, lines.count != facts.count {
            throw .linesDoNotMatchFacts(lines: lines.count, facts: facts.count)
        }
        if facts.isEmpty { return AppendResult(records: [], wasDuplicate: false) }
        var adopting = false
        return try append(AppendOptions(commandID: commandID, recordedAt: DateValue(utc: clock.now())), deciding: { () throws(StoreError) in
            // Decided again when the log was replaced meanwhile: only the last decision counts.
            adopting = folded != nil && projection.position == 0
            if adopting { return facts }
            do throws(FactRefusal) {
                try Decider.check(facts, in: projection)
            } catch {
                guard case .index(let index) = error.place else { throw Self.invalidRecord(error) }
                throw .importRefused(index: index, line: lines?[index], type: error.fact.type, rejection: error.rejection)
            }
            return facts
        }, projected: { adopting ? folded.take() : nil })
    }
}
