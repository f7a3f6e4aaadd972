import TimelineCore
import TimelineProjections

/// A log's records folded into a projection as they are read, a chunk at a time, each
/// fact checked against the domain rules in the state before it: the store's own way of
/// loading a log (``TimelineProjection/Loader`` validating), so a log is checked by one
/// set of rules in one pass, and only the projection is kept, never the log.
///
/// With `upTo`, the projection is the state after the last whole atomic batch that ends
/// at or before that position; the records after it are still read and checked.
struct LogFold {
    private var loader: TimelineProjection.Loader
    /// The loader as it was at `upTo`, once a record after it has been read.
    private var atUpTo: TimelineProjection.Loader?
    private let upTo: Int64?
    /// How many records and facts were read (all of them, `upTo` or not).
    private(set) var records = 0
    private(set) var facts = 0

    init(views: [ViewDefinition], now: Instant, upTo: Int64?) {
        loader = TimelineProjection.Loader(views: views, now: now, validating: true)
        self.upTo = upTo
    }

    /// Folds the next records, which must follow the ones before and end outside any
    /// atomic batch; throws the line of the first fact that the rules refuse.
    mutating func add(_ contents: LogReader.Contents) throws(LogReader.Failure) {
        let all = contents.records
        guard !all.isEmpty else { return }
        records += all.count
        for record in all { facts += record.facts.count }
        if let upTo, atUpTo == nil, let last = all.last, last.position > upTo {
            // The state to show ends with the last batch that ends at or before `upTo`; the
            // batch that straddles it is left out.
            let cut = Runner.records(all, upTo: upTo).count
            try fold(contents, 0..<cut)
            atUpTo = loader
            try fold(contents, cut..<all.count)
        } else {
            try fold(contents, all.indices)
        }
    }

    private mutating func fold(_ contents: LogReader.Contents, _ range: Range<Int>) throws(LogReader.Failure) {
        guard !range.isEmpty, let refusal = loader.add(contents.records[range]) else { return }
        // Positions run 1, 2, 3, …: the refused record's index follows from its position.
        guard case .record(let position) = refusal.place else {
            preconditionFailure("the loader refuses a record, never a fact at an index")
        }
        let index = Int(position - contents.records[0].position)
        throw LogReader.Failure(line: contents.lineNumbers[index], offset: contents.offsets[index],
                                reason: "\(refusal.fact.type.rawValue): \(refusal.rejection.description)")
    }

    /// The projection: its views and summaries built from the records folded (up to `upTo`).
    consuming func finish() -> TimelineProjection {
        (atUpTo ?? loader).finish()
    }
}
