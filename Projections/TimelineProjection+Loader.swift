import Dispatch
import Synchronization
import TimelineCore

extension TimelineProjection {
    /// Builds a projection from records given a part at a time, so that a log is never held
    /// whole: the records of each part are applied to the events and may be freed; the
    /// views and summaries are built once, by ``finish()``.
    package struct Loader: Sendable {
        private var projection: TimelineProjection
        private var names: [TimelineID: String] = [:]
        private let validating: Bool
        /// The first refusal, after which further records are ignored.
        package private(set) var refusal: FactRefusal?
        /// Where the projection stops (`--upto`): after the last whole atomic batch that
        /// ends at or before this position. The records after it are still checked.
        private let upTo: Int64?
        /// The projection and names as they were at ``upTo``, once a record after it was added.
        private var atUpTo: (projection: TimelineProjection, names: [TimelineID: String])?
        /// How many records and facts were added (all of them, ``upTo`` or not).
        package private(set) var recordCount = 0
        package private(set) var factCount = 0

        /// A loader for a projection with `views`; `validating` checks every fact against
        /// the domain rules in the state before it; with `upTo`, the projection is the
        /// state after the last whole atomic batch that ends at or before that position.
        package init(views: [ViewDefinition] = [ViewDefinition()], now: Instant, validating: Bool,
                     upTo: Int64? = nil) {
            projection = TimelineProjection(views: views, now: now)
            self.validating = validating
            self.upTo = upTo
        }

        /// Adds the next records of a log read a chunk at a time (they follow the ones before
        /// and end outside any atomic batch), counting them; throws the line of the first
        /// fact that the rules refuse.
        /// - Complexity: as ``add(_:)``.
        package mutating func add(_ contents: LogReader.Contents) throws(LogReader.Failure) {
            let all = contents.records
            guard !all.isEmpty else { return }
            recordCount += all.count
            for record in all { factCount += record.facts.count }
            if let upTo, atUpTo == nil, let last = all.last, last.position > upTo {
                // The batch that straddles `upTo` is left out of the state kept.
                let cut = all.committedCount(upTo: upTo)
                try add(contents, 0..<cut)
                atUpTo = (projection, names)
                try add(contents, cut..<all.count)
            } else {
                try add(contents, all.indices)
            }
        }

        private mutating func add(_ contents: LogReader.Contents, _ range: Range<Int>) throws(LogReader.Failure) {
            guard !range.isEmpty, let refusal = add(contents.records[range]) else { return }
            // Positions run 1, 2, 3, …: the refused record's index follows from its position.
            guard case .record(let position) = refusal.place else {
                preconditionFailure("the loader refuses a record, never a fact at an index")
            }
            let index = Int(position - contents.records[0].position)
            throw LogReader.Failure(line: contents.lineNumbers[index], offset: contents.offsets[index],
                                    reason: "\(refusal.fact.type.rawValue): \(refusal.rejection.description)")
        }

        /// Applies the next records (in log order) to the events; returns the first fact the
        /// rules refuse, if validating, and ignores everything after it.
        ///
        /// Without checks, a part of 4,096 records or more is folded one
        /// thread per shard of the events (each fact touches one event's shard); checked
        /// records are applied in order on the caller's thread.
        /// - Complexity: O(*r*) for *r* records (and the length of their titles) in order;
        ///   O(*r* · *s* / *p*) folded by *s* shards on *p* processors (each shard reads
        ///   every record).
        @discardableResult
        package mutating func add<S: Sequence>(_ records: S) -> FactRefusal? where S.Element == Record {
            guard refusal == nil else { return refusal }
            // An array (the usual case) is looped over its buffer: looping a sequence of a
            // type from another module goes through a witness table and copies each record.
            if let found = records.withContiguousStorageIfAvailable({ add(contiguous: $0) }) { return found }
            for record in records {
                if let found = add(record) { return found }
            }
            return nil
        }

        private mutating func add(contiguous records: UnsafeBufferPointer<Record>) -> FactRefusal? {
            // Without checks, a fact about an event touches its shard of the events only:
            // the shards are folded at the same time, and the timelines' names beside them.
            if !validating, records.count >= Self.parallelFoldMinimum {
                names = projection.events.applyInParallel(records) { [names] records in
                    var names = names
                    for record in records {
                        for fact in record.facts where fact.event == nil { Self.note(fact, in: &names) }
                    }
                    return names
                }
                if let last = records.last { projection.position = last.position }
                return nil
            }
            for record in records {
                if let found = add(record) { return found }
            }
            return nil
        }

        /// Below this many records a fold stays on one thread (starting threads costs more).
        static let parallelFoldMinimum = 4_096

        /// Notes a timeline's name, or its removal.
        private static func note(_ fact: Fact, in names: inout [TimelineID: String]) {
            switch fact {
            case .timelineCreated(let id, let name), .timelineRenamed(let id, let name): names[id] = name
            case .timelineRemoved(let id): names[id] = nil
            default: break
            }
        }

        private mutating func add(_ record: Record) -> FactRefusal? {
            for fact in record.facts {
                if validating {
                    do { try projection.check(fact, timelines: names) } catch {
                        refusal = FactRefusal(position: record.position, fact: fact, rejection: error)
                        return refusal
                    }
                }
                Self.note(fact, in: &names)
                projection.events.fold(fact)
            }
            projection.position = record.position
            return nil
        }

        /// The projection of the records added (up to ``upTo``): its views and summaries built at once.
        /// - Complexity: O(*n* log *n*) for *n* rows.
        package consuming func finish() -> TimelineProjection {
            if let (kept, keptNames) = atUpTo.take() {
                projection = kept
                names = keptNames
            }
            projection.buildViewsAndSummaries(names: names)
            return projection
        }
    }

    /// Checks a fact against the events and the timelines `timelines` names (while
    /// loading, before the summaries exist). The lookup lives only for the call, so the
    /// events stay uniquely referenced and are changed in place afterwards.
    fileprivate func check(_ fact: Fact, timelines: [TimelineID: String]) throws(Rejection) {
        try Decider.check(fact, in: LoadingLookup(timelines: timelines, events: events))
    }

    /// Builds every row set and the summaries from the events, at the same time on as
    /// many processors as there are: each is built from the same events, which are only read.
    ///
    /// The summaries are the last task, not beside the largest set: the two at once
    /// would hold both their sorts' temporaries, raising the peak memory of opening a store.
    fileprivate mutating func buildViewsAndSummaries(names: [TimelineID: String]) {
        let events = self.events, position = self.position, now = self.now.microsecondsSinceEpoch
        let sets = rowSets
        let built = Mutex<(rowSets: [RowSet], summaries: SummaryState?)>((sets, nil))
        DispatchQueue.concurrentPerform(iterations: sets.count + 1) { task in
            if task == sets.count {
                var summaries = SummaryState(names: names, events: events.snapshots)
                summaries.restorePosition(position)
                built.withLock { $0.summaries = summaries }
            } else {
                var set = sets[task]
                set.rebuild(events: events, now: now, position: position)
                built.withLock { $0.rowSets[task] = set }
            }
        }
        built.withLock { built in
            rowSets = built.rowSets
            if let summaries = built.summaries { self.summaries = summaries }
        }
    }
}

/// The timelines and events while a projection loads: the names seen so far and the events.
private struct LoadingLookup: DomainLookup {
    let timelines: [TimelineID: String]
    let events: EventTable

    func timeline(_ id: TimelineID) -> Timeline? { timelines[id].map { Timeline(id: id, name: $0) } }
    func event(_ id: EventID) -> Event? { events[id]?.event }
    func eventTimeline(_ id: EventID) -> TimelineID? { events[id]?.timeline }
    func eventDates(_ id: EventID) -> EventDates? { events[id]?.dates }
}
