import TimelineCore
import TimelineProjections

/// Makes ids that nothing in a store or replica has, at the moment a command is decided
/// (``TimelineStore/send(commandID:making:)``, ``TimelineReplica/send(condition:localID:making:)``):
/// `e<n>` for events, slugs of names for timelines (`My life` → `my-life`, then
/// `my-life-2`, …); on a replica each ends with the device's tag (`e12.4f1c9a0b2d3e`).
public struct NewIdentifiers {
    /// What exists: an id is free when this has nothing with it.
    private let lookup: any DomainLookup
    /// At least how many events exist: event ids are tried from the next number.
    private let eventCount: Int
    /// The device's tag on a replica.
    private let tag: String?

    init(projection: TimelineProjection) {
        (lookup, eventCount, tag) = (projection, projection.eventCount, nil)
    }

    init(replica lookup: any DomainLookup, eventCount: Int, tag: String) {
        (self.lookup, self.eventCount, self.tag) = (lookup, eventCount, tag)
    }

    /// An event id that no event has: `e<n>`, the next number after the events' count when free.
    /// - Complexity: O(log *n*) lookups.
    public func eventID() -> EventID {
        IdentifierMaker.eventID(count: eventCount, tag: tag) { lookup.eventTimeline($0) != nil }
    }

    /// A timeline id made from `name` that no timeline has.
    /// - Complexity: O(*t*) for the *t* characters of the name, plus one lookup per suffix tried.
    public func timelineID(name: String) -> TimelineID {
        IdentifierMaker.timelineID(name: name, tag: tag) { lookup.timeline($0) != nil }
    }
}

extension TimelineStore {
    /// An event id that no event has now: `e<n>`, the next number after the events'
    /// count when free (as in a store whose events were all made so). Another process on
    /// the same log may take it before a command that carries it is sent: to be sure,
    /// make it in ``send(commandID:making:)``.
    /// - Complexity: O(log *n*) lookups.
    public func makeEventID() -> EventID {
        NewIdentifiers(projection: projection).eventID()
    }

    /// A timeline id made from `name` that no timeline has now: `My life` → `my-life`,
    /// then `my-life-2`, … when taken (see ``makeEventID()`` about other processes).
    /// - Complexity: O(*t*) for the *t* characters of the name, plus one lookup per suffix tried.
    public func makeTimelineID(name: String) -> TimelineID {
        NewIdentifiers(projection: projection).timelineID(name: name)
    }

    /// Sends the command `make` builds, with ids it makes (``NewIdentifiers``) in the state
    /// the command is decided in: under the log's lock, after every record other processes
    /// committed, so an id made is free when the command is appended. Recorded for undo as
    /// ``send(_:commandID:expectedPosition:)`` is. Returns the command sent and its records.
    public func send(commandID: String? = nil, making make: @Sendable (NewIdentifiers) -> Command)
        throws(StoreError) -> (command: Command, records: [Record]) {
        var made: Command?
        let sent = try sendRecordingUndo({ projection in
            let command = make(NewIdentifiers(projection: projection))
            made = command
            return [command]
        }, commandID: commandID, expectedPosition: nil)
        noteSent(sent.undo, actionName: sent.actionName)
        guard let made else { preconditionFailure("a send decides its command before it returns") }
        return (made, sent.records)
    }

    /// ``send(commandID:making:)`` telling whether `commandID` was already in the log
    /// (``AppendResult/wasDuplicate``: nothing appended, the records are the first time's;
    /// then the command is made but not sent), without recording an undo.
    package func sendReporting(commandID: String?, making make: (NewIdentifiers) -> Command)
        throws(StoreError) -> (command: Command, result: AppendResult) {
        var made: Command?
        let result = try append(AppendOptions(commandID: commandID, recordedAt: DateValue(utc: clock.now()))) {
            () throws(StoreError) in
            let command = make(NewIdentifiers(projection: projection))
            made = command
            do throws(Rejection) { return try Decider.decide([command], projection) } catch { throw .rejected(error) }
        }
        // A duplicate command id is found before deciding: the command is made here.
        let command = made ?? make(NewIdentifiers(projection: projection))
        if result.wasDuplicate { try Self.refuseOtherCommands([command], commandID: commandID, recorded: result) }
        return (command, result)
    }
}
