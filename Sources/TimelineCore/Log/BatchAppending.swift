/// One batch among several appended in one hold of a log's lock: its facts and options
/// (its command id, time and nonce). No facts: nothing is appended for it.
package struct PlannedBatch: Sendable {
    /// The batch's facts.
    package var facts: [Fact]
    /// Its command id, time and submission nonce.
    package var options: AppendOptions

    /// A batch of `facts` with `options`.
    package init(facts: [Fact], options: AppendOptions) {
        self.facts = facts
        self.options = options
    }
}

/// A log that appends several batches in one hold of its lock, each decided against the
/// ones before it: a replica pushes its pending submissions so, in one write and one
/// sync for a file log, instead of one of each per submission.
package protocol BatchAppending: EventLog {
    /// Under the log's lock: hands the records committed after `known` to `catchingUp`;
    /// then asks `deciding` for batch 0, 1, … up to `count - 1` (or until it returns
    /// `nil`), handing each planned batch's records to `catchingUp` before asking for the
    /// next, so that each is decided against everything before it; a batch whose command
    /// id is in the log already is skipped. Everything planned is then made durable at
    /// once, all or nothing. Returns the records appended.
    func appendEach<Failure: Error>(
        after known: Int64, count: Int,
        catchingUp: ([Record]) throws(Failure) -> Void,
        deciding: (Int) throws(Failure) -> PlannedBatch?
    ) throws(AppendFailure<Failure>) -> [Record]
}

/// The batches that ``BatchAppending/appendEach(after:count:catchingUp:deciding:)`` plans
/// after `position`, with their records: `deciding` asked for each in turn, each planned
/// batch's records handed to `catchingUp` before the next is asked for, a command id the
/// log holds (`isTaken`) or planned already skipped, a batch without facts skipped, and
/// `check` asked whether the log can write each (a line too long).
/// - Complexity: O(*k*) for the *k* facts planned, plus the lookups of `isTaken`.
package func planBatches<Failure: Error>(
    after position: Int64, count: Int,
    isTaken: (String) throws(EventLogError) -> Bool,
    check: (RecordBatch) throws(EventLogError) -> Void,
    catchingUp: ([Record]) throws(Failure) -> Void,
    deciding: (Int) throws(Failure) -> PlannedBatch?
) throws(AppendFailure<Failure>) -> [[Record]] {
    var planned: [[Record]] = []
    var position = position
    var ids = Set<CommandKey>()
    for index in 0..<count {
        let plan: PlannedBatch?
        do throws(Failure) { plan = try deciding(index) } catch { throw .refused(error) }
        guard let plan else { break }
        do throws(EventLogError) {
            if let id = plan.options.commandID {
                guard try !isTaken(id), ids.insert(CommandKey(id)).inserted else { continue }
            }
            guard !plan.facts.isEmpty else { continue }
            try check(RecordBatch(facts: plan.facts, after: position, options: plan.options))
        } catch {
            throw .log(error)
        }
        let records = Record.batch(of: plan.facts, after: position, options: plan.options)
        do throws(Failure) { try catchingUp(records) } catch { throw .refused(error) }
        planned.append(records)
        position += Int64(records.count)
    }
    return planned
}
