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
