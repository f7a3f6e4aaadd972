import Foundation
import Testing
@testable import TimelineCore
@testable import TimelineKit

/// A replica through the library, as a front end uses it: sends shown at once as pending,
/// a sync that confirms or rejects them, notices, and a view model that follows it all.
@Suite("TimelineReplica and its view model")
struct ReplicaTests {
    let directory: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("timeline-replica-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    /// A shared log with timeline `life` and event `born`, and a replica of it.
    func sharedAndReplica(_ name: String = "phone") async throws -> (shared: String, replica: TimelineReplica) {
        let shared = directory + "/shared.jsonl"
        if !FileManager.default.fileExists(atPath: shared) {
            let store = try TimelineStore(path: shared)
            try await store.send([.createTimeline("life", name: "Life"),
                                  .addEvent("born", timeline: "life", title: "Born", dates: .single(try DateValue(parsing: "1990")))])
            try await store.close()
        }
        let replica = try await TimelineReplica.clone(try FileEventLog(path: shared), shared: shared,
                                                      to: directory + "/\(name).jsonl")
        return (shared, replica)
    }

    @Test func sendsArePendingUntilTheSharedLogDecidesThem() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (shared, phone) = try await sharedAndReplica()
        let (_, laptop) = try await sharedAndReplica("laptop")
        _ = try await phone.send([.retitleEvent("born", title: "Mine")])
        // What the phone shows: its edit, pending; the laptop removes the event first.
        let shown = try await phone.shownProjection(views: [ViewDefinition()], now: Instant(microsecondsSinceEpoch: 0))
        #expect(shown.pending == ["born"])
        #expect(shown.projection.event("born")?.title == "Mine")
        _ = try await laptop.send([.removeEvent("born")])
        _ = try await laptop.sync(with: try FileEventLog(path: shared))
        let report = try await phone.sync(with: try FileEventLog(path: shared))
        #expect(report.rejected == 1 && report.pending == 0)
        let notice = try #require(await phone.notices.first)
        #expect(notice.rule == "unknownEvent" && notice.commands == [.retitleEvent("born", title: "Mine")])
        // A command the replica's own view refuses is not queued.
        await #expect(throws: ReplicaSendError.rejected(.unknownEvent("born"))) {
            try await phone.send([.retitleEvent("born", title: "Again")])
        }
        #expect(await phone.pending.isEmpty)
        #expect(try await phone.dismissAllNotices() == 1)
    }

    /// Ids made in a send are made under the replica's exclusive access: two processes on
    /// one replica (two instances here) never make the same one, and ids made offline go
    /// up by one per command (`e2.TAG`, `e3.TAG`, …), not by doubling steps.
    @Test func idsMadeInASendAreFreeAndConsecutive() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (_, phone) = try await sharedAndReplica()
        let other = try TimelineReplica(path: phone.path)
        let tag = IdentifierMaker.tag(of: await phone.device)
        // Both made before either is sent: the other process's id is taken by then.
        let early = await other.makeEventID()
        let date = EventDates.single(try DateValue(parsing: "2001"))
        var made: [EventID] = []
        for replica in [phone, other, phone, other, phone] {
            let sent = try await replica.send { ids in
                [.addEvent(ids.eventID(), timeline: "life", title: "Walk", dates: date)]
            }
            guard case .addEvent(let id, _, _, _) = sent.commands[0] else { Issue.record("not an addEvent"); return }
            made.append(id)
        }
        #expect(made == (2...6).map { EventID("e\($0).\(tag)") })
        #expect(early == made[0])
        // A timeline's slug: free of what the other process saved.
        let first = try await phone.send { [.createTimeline($0.timelineID(name: "Trips"), name: "Trips")] }
        let second = try await other.send { [.createTimeline($0.timelineID(name: "Trips"), name: "Trips")] }
        #expect(first.commands == [.createTimeline(TimelineID("trips.\(tag)"), name: "Trips")])
        #expect(second.commands == [.createTimeline(TimelineID("trips-2.\(tag)"), name: "Trips")])
        #expect(await other.pending.count == 7)
    }

    /// An id a rejected submission carried is not made again for another event while its
    /// notice stands: the notice and the new event never name the same id.
    @Test func anIdOfARejectedSubmissionIsNotMadeAgain() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (shared, phone) = try await sharedAndReplica()
        let (_, laptop) = try await sharedAndReplica("laptop")
        let date = EventDates.single(try DateValue(parsing: "2001"))
        let first = try await phone.send { [.addEvent($0.eventID(), timeline: "life", title: "Walk", dates: date)] }
        _ = try await laptop.send([.removeTimeline("life")])
        _ = try await laptop.sync(with: try FileEventLog(path: shared))
        _ = try await phone.sync(with: try FileEventLog(path: shared))
        #expect(await phone.notices.map(\.commands) == [first.commands])
        _ = try await phone.send([.createTimeline("life", name: "Life again")])
        let next = try await phone.send { [.addEvent($0.eventID(), timeline: "life", title: "Run", dates: date)] }
        guard case .addEvent(let rejected, _, _, _) = first.commands[0], case .addEvent(let made, _, _, _) = next.commands[0]
        else { Issue.record("not addEvents"); return }
        #expect(made != rejected)
    }

    /// What a writer killed between writing and renaming left beside the replica's files
    /// is removed when the replica is opened next; a live process's is left alone.
    @Test func temporariesOfKilledWritersAreRemovedOnOpening() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (_, phone) = try await sharedAndReplica()
        let stale = phone.path + ".pending.tmp-4194000-1", live = phone.path + ".queue.tmp-\(getpid())-1"
        for file in [stale, live] { #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8))) }
        _ = try TimelineReplica(path: phone.path)
        #expect(!FileManager.default.fileExists(atPath: stale))
        #expect(FileManager.default.fileExists(atPath: live))
    }

    /// `revert(batchContaining:)` sends the undo of a mirrored batch with its condition and
    /// the batch it undoes: the last two batches undo in turn, a batch undone is refused
    /// naming its undo, a batch that changed nothing queues nothing, and a record the mirror
    /// does not hold is named.
    @Test func aReplicaRevertsMirroredBatchesInTurn() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (shared, phone) = try await sharedAndReplica()
        func sync() async throws { _ = try await phone.sync(with: try FileEventLog(path: shared)) }
        _ = try await phone.send([.retitleEvent("born", title: "A")])
        _ = try await phone.send([.retitleEvent("born", title: "B")])
        _ = try await phone.send([.moveEvent("born", to: "life")])
        try await sync()
        #expect(try await phone.revert(batchContaining: 5) == nil, "a move to its own timeline changed nothing")
        #expect(await phone.pending.isEmpty)
        let undo = try #require(try await phone.revert(batchContaining: 4))
        #expect(undo.commands == [.retitleEvent("born", title: "A")])
        #expect(undo.condition == UndoCondition(after: 5, events: ["born"], timelines: [], undoes: 4))
        try await sync()
        let before = try #require(try await phone.revert(batchContaining: 3))
        #expect(before.commands == [.retitleEvent("born", title: "Born")])
        try await sync()
        let records = try FileEventLog(path: shared).records(after: 0)
        #expect(records.map(\.undoneBatch) == [nil, nil, nil, nil, nil, 4, 3])
        #expect(records.last?.facts == [.eventRetitled(event: "born", title: "Born")])
        await #expect(throws: ReplicaSendError.undoRefused(.alreadyUndone(by: 7))) {
            try await phone.revert(batchContaining: 3)
        }
        await #expect(throws: ReplicaSendError.undoRefused(.noSuchRecord(position: 99, last: 7))) {
            try await phone.revert(batchContaining: 99)
        }
        #expect(await phone.pending.isEmpty)
    }

    /// A front end's undo and redo on a replica: the last send, once decided, undone by a
    /// submission the shared log checks; refused while pending (sync first); a send the
    /// shared log rejected is passed over; a new send clears redo.
    @Test func undoAndRedoOfAReplicasOwnSends() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (shared, phone) = try await sharedAndReplica()
        let (_, laptop) = try await sharedAndReplica("laptop")
        func sync(_ replica: TimelineReplica) async throws { _ = try await replica.sync(with: try FileEventLog(path: shared)) }
        func title() throws -> String? {
            var state = DomainState()
            for record in try FileEventLog(path: shared).records(after: 0) { for fact in record.facts { state.apply(fact) } }
            return state.event("born")?.title
        }
        #expect(await !phone.canUndo)
        _ = try await phone.send([.retitleEvent("born", title: "A")])
        #expect(await phone.canUndo)
        #expect(await phone.undoActionName == #"Retitle "Born""#)
        await #expect(throws: ReplicaSendError.self) { try await phone.undo() }
        try await sync(phone)
        // Another device's send changes nothing here; a send of this one that is rejected is passed over.
        _ = try await phone.send([.addEvent("trip", timeline: "life", title: "Trip", dates: .single(try DateValue(parsing: "2001")))])
        _ = try await laptop.send([.createTimeline("trip-ish", name: "T")])
        _ = try await laptop.send([.addEvent("trip", timeline: "trip-ish", title: "Theirs", dates: .single(try DateValue(parsing: "2002")))])
        try await sync(laptop)
        try await sync(phone)
        #expect(await phone.notices.count == 1, "the phone's trip was rejected: the id was taken first")
        // The menu names what undo() undoes: it named the rejected trip, which undo passes over.
        #expect(await phone.undoActionName == #"Retitle "Born""#)
        let undo = try #require(try await phone.undo())
        #expect(undo.commands == [.retitleEvent("born", title: "Born")])
        #expect(await !phone.canUndo)
        #expect(await phone.canRedo)
        #expect(await phone.redoActionName == #"Retitle "Born""#)
        try await sync(phone)
        #expect(try title() == "Born")
        _ = try #require(try await phone.redo())
        try await sync(phone)
        #expect(try title() == "A")
        #expect(await phone.canUndo)
        #expect(await !phone.canRedo)
        _ = try #require(try await phone.undo())
        try await sync(phone)
        #expect(try title() == "Born")
        _ = try await phone.send([.retitleEvent("born", title: "C")])
        #expect(await !phone.canRedo, "a new send clears redo")
        let last = try #require(await phone.pending.last?.id)
        await #expect(throws: ReplicaSendError.undoRefused(.notDecidedYet(last))) { try await phone.undo() }
    }

    /// A replica's revert that would put an event back in a timeline removed since names the
    /// removal to revert first, as a store does; nothing is queued.
    @Test func aReplicasRevertIntoARemovedTimelineNamesTheRemoval() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (shared, phone) = try await sharedAndReplica()
        _ = try await phone.send([.createTimeline("work", name: "Work")])
        _ = try await phone.send([.moveEvent("born", to: "work")])
        _ = try await phone.send([.removeTimeline("life")])
        _ = try await phone.sync(with: try FileEventLog(path: shared))
        await #expect(throws: ReplicaSendError.undoRefused(.timelineRemoved("life", position: 5))) {
            try await phone.revert(batchContaining: 4)
        }
        #expect(await phone.pending.isEmpty)
    }

    /// An undo whose condition a pending submission of this device breaks is refused at
    /// once (the shared log would reject it `changedSince`); one on other events is queued.
    @Test func anUndoThatAPendingSubmissionBreaksIsRefused() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (_, phone) = try await sharedAndReplica()
        _ = try await phone.send([.retitleEvent("born", title: "Mine")])
        let position = await phone.position
        await #expect(throws: ReplicaSendError.self) {
            try await phone.send([.retitleEvent("born", title: "Born")],
                                 condition: UndoCondition(after: position, events: ["born"], timelines: []))
        }
        #expect(await phone.pending.count == 1)
        // A retitle touches its event, not its timeline: as the shared log counts touches.
        _ = try await phone.send([.renameTimeline("life", name: "Life")],
                                 condition: UndoCondition(after: position, events: [], timelines: ["life"]))
        #expect(await phone.pending.count == 2)
        await #expect(throws: ReplicaSendError.self) {
            try await phone.send([.renameTimeline("life", name: "Ours")],
                                 condition: UndoCondition(after: position, events: [], timelines: ["life"]))
        }
        // Removing a timeline touches its events.
        let (_, laptop) = try await sharedAndReplica("laptop")
        _ = try await laptop.send([.removeTimeline("life")])
        await #expect(throws: ReplicaSendError.self) {
            try await laptop.send([.createTimeline("other", name: "Other")],
                                  condition: UndoCondition(after: position, events: ["born"], timelines: []))
        }
        _ = try await laptop.send([.createTimeline("other", name: "Other")],
                                  condition: UndoCondition(after: position, events: ["elsewhere"], timelines: ["work"]))
        #expect(await laptop.pending.count == 2)
    }

    /// A revert that a pending change of this device overwrites names that change, even
    /// when what the replica shows refuses the undo for it (the event is back already):
    /// it said only "event born already exists".
    @Test func aRevertOverwritingAPendingChangeNamesIt() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (shared, phone) = try await sharedAndReplica()
        _ = try await phone.send([.removeEvent("born")])
        _ = try await phone.sync(with: try FileEventLog(path: shared))
        let removal = await phone.position
        let again = try await phone.send([.addEvent("born", timeline: "life", title: "Again",
                                                    dates: .single(try DateValue(parsing: "1991")))])
        do {
            _ = try await phone.revert(batchContaining: removal)
            Issue.record("the revert was queued")
        } catch {
            guard case .changedSince(let message) = error else { throw error }
            #expect(message.hasPrefix("\(again.id), pending on this device, changes what the undo would restore"),
                    "\(message)")
        }
        #expect(await phone.pending.map(\.id) == [again.id])
    }

    @MainActor
    @Test func theViewModelShowsPendingRowsAndTheirConfirmation() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (shared, phone) = try await sharedAndReplica()
        let model = ReplicaViewModel(replica: phone)
        defer { model.stop() }
        #expect(await eventually { model.rows.count == 1 })
        _ = try await phone.send([.retitleEvent("born", title: "Mine")])
        #expect(await eventually { model.pending == ["born"] && model.pendingCount == 1 })
        #expect(model.rows.first?.title == "Mine" && model.isPending(model.rows[0]))
        _ = try await phone.sync(with: try FileEventLog(path: shared))
        #expect(await eventually { model.pending.isEmpty && model.position == 3 })
        #expect(model.rows.first?.title == "Mine" && model.pendingCount == 0)
    }

    /// The model's count of pending submissions and its notices follow sends, syncs and
    /// dismissals that change no row: they stayed as they were until a row changed.
    @MainActor
    @Test func theViewModelFollowsPendingCountsAndNoticesThatChangeNoRow() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (shared, phone) = try await sharedAndReplica()
        let (_, laptop) = try await sharedAndReplica("laptop")
        let model = ReplicaViewModel(replica: phone)
        defer { model.stop() }
        #expect(await eventually { model.rows.count == 1 })
        _ = try await phone.send([.createTimeline("trips", name: "Trips")])
        #expect(await eventually { model.pendingCount == 1 }, "a send that shows no row")
        _ = try await laptop.send([.createTimeline("trips", name: "Travel")])
        _ = try await laptop.sync(with: try FileEventLog(path: shared))
        _ = try await phone.sync(with: try FileEventLog(path: shared))
        #expect(await eventually { model.notices.count == 1 && model.pendingCount == 0 })
        #expect(try await phone.dismissAllNotices() == 1)
        #expect(await eventually { model.notices.isEmpty }, "a dismissal")
        #expect(model.rows.count == 1)
    }

    /// A mirror damaged under a view model is said (`problem`), the rows kept as last
    /// read, and the problem goes once a sync fetches the mirror again: the model went
    /// on showing the old rows with nothing to say why nothing changed.
    @MainActor
    @Test func theViewModelSaysWhyItCannotReadTheReplica() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (shared, phone) = try await sharedAndReplica()
        let model = ReplicaViewModel(replica: phone)
        defer { model.stop() }
        #expect(await eventually { model.rows.count == 1 && model.problem == nil })
        let mirror = try #require(FileHandle(forWritingAtPath: phone.path))
        try mirror.seekToEnd()
        try mirror.write(contentsOf: Data("not a record\n".utf8))
        try mirror.close()
        #expect(await eventually { model.problem != nil })
        #expect(model.rows.count == 1)
        if case .damaged(let path, _)? = model.problem {
            #expect(path == phone.path)
        } else {
            Issue.record("not the mirror's damage: \(String(describing: model.problem))")
        }
        _ = try await phone.sync(with: try FileEventLog(path: shared))
        #expect(await eventually { model.problem == nil && model.rows.count == 1 })
    }

    /// A read that fails is tried again: it waited for the next change of the replica's
    /// files, so a model stayed empty until something wrote (nothing writes here: without
    /// the retry, the stream waits until the time limit). No timer of the test's own: on
    /// a machine loaded by other suites, 20 s once passed before the rows came.
    @Test(.timeLimit(.minutes(10)))
    func shownChangesTriesAFailedReadAgain() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (_, phone) = try await sharedAndReplica()
        let stream = await phone.shownChanges(ViewDefinition(), now: { Instant(microsecondsSinceEpoch: 0) },
                                              failingReads: 3)
        // The three failures are said once (the stream keeps only the newest element
        // for a slow reader: perhaps not seen), then the rows come.
        var problems: [Int] = [], rows: Int?
        for await shown in stream {
            guard shown.problem == nil else {
                problems.append(shown.rows.count)
                continue
            }
            rows = shown.rows.count
            break
        }
        #expect(rows == 1)
        #expect(problems.count <= 1 && problems.allSatisfy { $0 == 0 }, "\(problems)")
    }

    /// A plain log, or nothing, is not a replica: it said the replica's identity was
    /// damaged and to restore it from a backup.
    @Test func aPlainLogIsNotAReplica() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (shared, _) = try await sharedAndReplica()
        for path in [shared, directory + "/nothing.jsonl"] {
            #expect(throws: ReplicaError.notAReplica(path: path)) { _ = try TimelineReplica(path: path) }
        }
        #expect(ReplicaError.notAReplica(path: "a.jsonl").description
            == "a.jsonl is not a replica (there is no a.jsonl.replica beside it): make one by cloning the shared log")
    }

    /// Front ends send from the main actor, with ids made in the state the command is
    /// decided in: the closures did not compile there (they were not `@Sendable`).
    @MainActor
    @Test func aFrontEndOnTheMainActorSendsWithIdsItMakes() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (_, phone) = try await sharedAndReplica()
        let title = "Walk", date = EventDates.single(try DateValue(parsing: "2001"))
        let sent = try await phone.send { ids in [.addEvent(ids.eventID(), timeline: "life", title: title, dates: date)] }
        #expect(sent.commands.count == 1)
        let store = try TimelineStore()
        let timeline = try await store.send { ids in .createTimeline(ids.timelineID(name: title), name: title) }
        #expect(timeline.command == .createTimeline("walk", name: "Walk"))
    }
}

/// Waits until `condition` holds, up to 5 minutes (in a full run the other suites can hold
/// both processors for minutes: the model's task waits its turn); whether it did.
@MainActor
private func eventually(_ condition: @MainActor () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(300)
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}
