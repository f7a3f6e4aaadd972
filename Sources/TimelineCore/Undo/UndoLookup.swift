/// What computing a compensating batch reads of the state before the batch: the domain
/// lookup, and the events of a timeline (a removed timeline comes back with them).
package protocol UndoLookup: DomainLookup {
    /// The ids of the events of this timeline, in no particular order.
    func eventIDs(in timeline: TimelineID) -> Set<EventID>
}

extension DomainState: UndoLookup {}
