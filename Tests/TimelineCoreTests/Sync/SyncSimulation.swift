import Synchronization
import Testing
import TimelineTestSupport
@testable import TimelineCore

/// A replica's storage kept in memory: what survives a "kill" of the replica object, as
/// its files would.
final class MemoryReplicaStorage: ReplicaStorage {
    struct Files {
        var mirror: [UInt8] = []
        var pending: [Submission] = []
        var queue: ReplicaQueue
    }

    let files: Mutex<Files>

    init(device: DeviceID) { files = Mutex(Files(queue: ReplicaQueue(device: device))) }

    func load() throws(ReplicaError) -> ReplicaContents {
        let files = self.files.withLock { $0 }
        var records: [Record] = []
        var problem: String?
        var lineStart = 0
        for (index, byte) in files.mirror.enumerated() where byte == 0x0A {
            do {
                records.append(try RecordDecoder().decode(line: Array(files.mirror[lineStart..<index]),
                                                          lineNumber: records.count + 1,
                                                          expectedPosition: Int64(records.count + 1)))
            } catch {
                problem = error.description
                break
            }
            lineStart = index + 1
        }
        return ReplicaContents(device: files.queue.device, mirror: records, mirrorProblem: problem,
                               pending: files.pending, notices: files.queue.notices, state: files.queue.state,
                               decidedLocalIDs: files.queue.decidedLocalIDs)
    }

    func appendToMirror(_ bytes: [UInt8]) throws(ReplicaError) { files.withLock { $0.mirror += bytes } }
    func replaceMirror(_ bytes: [UInt8]) throws(ReplicaError) { files.withLock { $0.mirror = bytes } }
    func appendPending(_ submission: Submission) throws(ReplicaError) { files.withLock { $0.pending.append(submission) } }
    func replaceQueue(_ queue: ReplicaQueue) throws(ReplicaError) {
        files.withLock {
            $0.pending = queue.pending
            $0.queue = queue
        }
    }
}

/// A shared log behind a connection that can be cut: offline, every call fails; with a
/// lost reply, the next append lands and its caller is told it failed.
final class FlakySharedLog: EventLog {
    let base: InMemoryEventLog
    let offline = Atomic<Bool>(false)
    let loseNextReply = Atomic<Bool>(false)

    init(_ base: InMemoryEventLog) { self.base = base }

    var position: Int64 { base.position }

    func append<Failure: Error>(
        after known: Int64, options: AppendOptions, catchingUp: ([Record]) throws(Failure) -> Void,
        deciding: () throws(Failure) -> [Fact]
    ) throws(AppendFailure<Failure>) -> AppendResult {
        if offline.load(ordering: .relaxed) { throw .log(.io(path: "shared", operation: "connect", code: 101)) }
        let result = try base.append(after: known, options: options, catchingUp: catchingUp, deciding: deciding)
        if loseNextReply.exchange(false, ordering: .relaxed) {
            throw .log(.appendMayHaveLanded(path: "shared", operation: "reply", code: 104))
        }
        return result
    }

    func records(after position: Int64) throws(EventLogError) -> [Record] {
        if offline.load(ordering: .relaxed) { throw .io(path: "shared", operation: "connect", code: 101) }
        return try base.records(after: position)
    }

    func records(forCommandID id: String) throws(EventLogError) -> [Record]? { try base.records(forCommandID: id) }

    func watch(_ changed: @escaping @Sendable () -> Void) throws(EventLogError) -> LogWatch { try base.watch(changed) }
}

/// The seeded simulation of section 10: replicas of one shared log sending, syncing,
/// going offline, killed at every step of a sync, losing replies, their clocks jumping.
struct SyncSimulation {
    /// A bug to plant, to show that the properties find it.
    enum PlantedBug: CaseIterable { case none }

    struct Device {
        var storage: MemoryReplicaStorage
        var replica: ReplicaSync?
        var online = true
        /// Every submission this device acknowledged (send returned), by command id.
        var acknowledged: [String: Submission] = [:]
        /// Once another copy of the device is found.
        var stopped = false
        /// A copy of its storage taken earlier, to restore (as from a backup).
        var backup: MemoryReplicaStorage.Files?
        /// Whether it was restored from a backup: what it acknowledged before may be gone.
        var restored = false
        /// What it acknowledged since its last restore: never lost.
        var acknowledgedSinceRestore: [SubmissionID: Submission] = [:]
        /// When it found another copy of itself: the shared log's position, and its
        /// pending submissions then (which it must keep).
        /// (In folder mode, how many files had been written into the folder then.)
        var stoppedAt: (position: Int64, pending: [SubmissionID: String], writes: Int)?
        /// How far its clock is from the others' (folder mode: hours apart).
        var clockOffset: Int64 = 0
    }

    var rng: SplitMix64
    let shared = InMemoryEventLog()
    var devices: [Device] = []
    var clock = Instant(microsecondsSinceEpoch: 1_780_000_000_000_000)
    var log: [String] = []
    /// Folder mode: each device's copy of the folder (the sequencer's last) and the
    /// file-sync service between them; `nil` when devices reach the shared log itself.
    var folder: FileSyncModel?
    /// Who wrote each file of the folder.
    let ledger = WriteLedger()
    /// The sequencer's process (`nil` once killed: made again from the log at its next run).
    var sequencer: FolderSequencer?
    /// For how many more steps the sequencer is away (off, and its copy disconnected).
    var sequencerAway = 0
    /// The nonce each submission's predecessor had when it was made, by nonce.
    var follows: [String: String] = [:]

    init(seed: UInt64, replicas: Int, throughFolder: Bool = false) {
        rng = SplitMix64(seed: seed)
        for _ in 0..<replicas {
            let id = DeviceID.make(at: clock, using: &rng)
            let storage = MemoryReplicaStorage(device: id)
            devices.append(Device(storage: storage, replica: try! ReplicaSync(storage: storage, sharedName: "shared")))
        }
        if throughFolder {
            for k in devices.indices {
                devices[k].clockOffset = Int64.random(in: -6 * 3_600_000_000...6 * 3_600_000_000, using: &rng)
            }
            let copies = devices.map { MemoryFolder(owner: $0.storage.files.withLock { $0.queue.device.rawValue }, ledger: ledger) }
            folder = FileSyncModel(copies: copies + [MemoryFolder(owner: "sequencer", ledger: ledger)])
        }
    }

    /// A replica's pending submissions' nonces, by id.
    func pendingNonces(_ replica: ReplicaSync) -> [SubmissionID: String] {
        Dictionary(replica.queue.pending.map { ($0.id, $0.nonce) }, uniquingKeysWith: { first, _ in first })
    }

    /// The replica of device `k`, reopened from its storage if it was killed.
    mutating func replica(_ k: Int) -> ReplicaSync {
        if let replica = devices[k].replica { return replica }
        let replica = try! ReplicaSync(storage: devices[k].storage, sharedName: "shared")
        devices[k].replica = replica
        return replica
    }

    // MARK: Commands

    static let timelines: [TimelineID] = ["t1", "t2", "t3"]
    static let events: [EventID] = ["e1", "e2", "e3", "e4", "e5", "e6"]

    mutating func date() -> DateValue {
        try! DateValue(parsing: String(1990 + Int.random(in: 0..<30, using: &rng)))
    }

    /// A random command, naming ids the device sees more often than not.
    mutating func command(seeing state: DomainState) -> Command {
        var t = Self.timelines.randomElement(using: &rng)!, e = Self.events.randomElement(using: &rng)!
        if Int.random(in: 0..<3, using: &rng) > 0, let seen = state.timelines.keys.sorted(by: { $0.rawValue < $1.rawValue })
            .randomElement(using: &rng) { t = seen }
        let existing = state.events.keys.sorted(by: { $0.rawValue < $1.rawValue })
        if state.timelines.isEmpty { return .createTimeline(t, name: "T \(t)") }
        switch Int.random(in: 0..<14, using: &rng) {
        case 0: return .createTimeline(t, name: "T \(t)")
        case 1: return .renameTimeline(t, name: "R\(Int.random(in: 0..<9, using: &rng))")
        case 2: return .removeTimeline(t)
        case 3, 4: return .addEvent(e, timeline: t, title: "E \(e)", dates: .single(date()))
        case 5:
            let start = date()
            return .addEvent(e, timeline: t, title: "R \(e)", dates: .range(start: start, end: nil))
        case 6:
            if let seen = existing.randomElement(using: &rng) { e = seen }
            return .retitleEvent(e, title: "X\(Int.random(in: 0..<9, using: &rng))")
        case 7: return .setDate(e, date())
        case 8: return .setRange(e, start: date(), end: Bool.random(using: &rng) ? date() : nil)
        case 9: return .closeRange(e, end: date())
        case 10: return .reopenRange(e)
        case 11: return .moveEvent(e, to: t)
        case 12:
            if let seen = existing.randomElement(using: &rng) { e = seen }
            return .removeEvent(e)
        default: return .retitleEvent(e, title: "")  // always invalid
        }
    }

    /// What device `k` shows: its mirror's state with its pending submissions decided on top.
    func shown(_ replica: ReplicaSync) -> DomainState {
        var state = replica.shared.domain
        // During a sync the folded state may run ahead of the mirror; between steps it does not.
        for fact in replica.queue.tentativeFacts(on: replica.shared.domain).facts { state.apply(fact) }
        return state
    }

    // MARK: Steps

    mutating func step() {
        if folder != nil { return folderStep() }
        let k = Int.random(in: 0..<devices.count, using: &rng)
        switch Int.random(in: 0..<22, using: &rng) {
        case 0..<8: send(k)
        case 8..<13: sync(k)
        case 13, 14: devices[k].online.toggle()
        case 15: devices[k].replica = nil  // killed while idle
        case 16, 19: syncKilled(k)
        case 17: syncLosingReply(k)
        case 20: devices[k].backup = devices[k].storage.files.withLock { $0 }
        case 21: restore(k)
        case 18: clock = Instant(microsecondsSinceEpoch: clock.microsecondsSinceEpoch
                                    + Int64.random(in: -86_400_000_000...86_400_000_000, using: &rng))
        default: sync(k)
        }
        clock = Instant(microsecondsSinceEpoch: clock.microsecondsSinceEpoch + 1_000_000)
    }

    /// Device `k` restored from its backup: its files as they were, its process anew.
    mutating func restore(_ k: Int) {
        guard let backup = devices[k].backup else { return }
        devices[k].storage.files.withLock { $0 = backup }
        devices[k].replica = nil
        devices[k].restored = true
        devices[k].acknowledgedSinceRestore = [:]
        // A new incarnation: it finds the other copy again, from its files as they were.
        devices[k].stopped = false
        devices[k].stoppedAt = nil
        // Folder mode: now and then onto a new machine, whose copy of the folder starts
        // empty (the service fills it again; what only the old copy held is gone with it).
        if folder != nil, Bool.random(using: &rng) {
            folder!.copies[k].files.withLock { $0 = [:] }
            folder!.seen[k] = [:]
            log.append("restore \(k) onto an empty copy of the folder")
            return
        }
        log.append("restore \(k)")
    }

    mutating func send(_ k: Int) {
        var replica = replica(k)
        let count = Int.random(in: 0..<4, using: &rng) == 0 ? Int.random(in: 2...3, using: &rng) : 1
        let view = shown(replica)
        let commands = (0..<count).map { _ in command(seeing: view) }
        // Refused by the replica's own view: nothing queued, as on any store.
        guard (try? Decider.decide(commands, view)) != nil else { return }
        let nonce = Submission.makeNonce(using: &rng)
        // Now and then an undo's condition: nothing touched the ids it names since the mirror's position.
        var condition: UndoCondition?
        if Int.random(in: 0..<6, using: &rng) == 0 {
            let names = commands.map(\.names)
            condition = UndoCondition(after: replica.mirrorPosition, events: names.flatMap(\.events),
                                      timelines: names.flatMap(\.timelines))
        }
        // The nonce of the submission this one follows, as the device knows it: the chain
        // the shared log must keep (a copy's submission n+1 only after its own n).
        let number = replica.queue.nextNumber
        let previous = replica.queue.pending.last.flatMap { $0.id.number == number - 1 ? $0.nonce : nil }
            ?? replica.shared.outcomes[SubmissionID(device: replica.device, number: number - 1).description]?.nonce
        let madeAt = DateValue(utc: Instant(microsecondsSinceEpoch: clock.microsecondsSinceEpoch + devices[k].clockOffset))
        // Checked first, as a front end's send is: the state kept for it must follow every send.
        _ = try? replica.check(commands)
        let submission = try! replica.send(commands, madeAt: madeAt, nonce: nonce, condition: condition)
        if let previous { follows[submission.nonce] = previous }
        devices[k].acknowledged[submission.id.description] = submission
        devices[k].acknowledgedSinceRestore[submission.id] = submission
        devices[k].replica = replica
        log.append("send \(k) \(submission.id.number) \(commands)")
    }

    mutating func sync(_ k: Int, fault: (@Sendable (ReplicaSync.Step) -> Bool)? = nil, loseReply: Bool = false) {
        if folder != nil { return syncThroughFolder(k, fault: fault) }
        var replica = replica(k)
        let flaky = FlakySharedLog(shared)
        flaky.offline.store(!devices[k].online, ordering: .relaxed)
        flaky.loseNextReply.store(loseReply, ordering: .relaxed)
        replica.fault = fault
        let now = DateValue(utc: clock)
        do {
            let report = try replica.sync(with: flaky, now: { now })
            log.append("sync \(k): \(report.pushed) pushed, \(report.pulled) pulled")
        } catch .interrupted(let step) {
            log.append("sync \(k) killed at \(step)")
            devices[k].replica = nil
            return
        } catch .stopped {
            if devices[k].stoppedAt == nil {
                devices[k].stoppedAt = (shared.position, pendingNonces(replica), 0)
            }
            devices[k].stopped = true
        } catch {
            log.append("sync \(k) failed: \(error)")
        }
        replica.fault = nil
        devices[k].replica = replica
    }

    mutating func syncKilled(_ k: Int) {
        let step = ReplicaSync.Step.allCases.randomElement(using: &rng)!
        let after = Int.random(in: 0..<2, using: &rng)
        let seen = Atomic<Int>(0)
        sync(k, fault: { at in at == step && seen.add(1, ordering: .relaxed).newValue > after })
    }

    mutating func syncLosingReply(_ k: Int) { sync(k, loseReply: true) }

    /// Everyone online, syncing until nothing changes.
    mutating func heal() {
        if folder != nil { return healFolder() }
        for k in devices.indices { devices[k].online = true }
        for _ in 0..<3 { for k in devices.indices { sync(k) } }
    }

    // MARK: Properties

    /// The shared log's records.
    var sharedRecords: [Record] { try! shared.records(after: 0) }

    /// Properties (1)–(5) of section 10, after every step.
    func checkAlways() throws {
        let records = sharedRecords
        // (1) every prefix at a batch boundary passes the rules: folding checks each fact.
        var state = SharedLogState()
        try state.apply(records)
        // Each device's outcomes follow one chain: D:n+1 decided after D:n only if it was
        // made after that very submission (not another copy's n).
        var lastNonce: [DeviceID: String] = [:]
        for record in records where record.batchRemainder == 0 || record.facts.first?.type == .commandRejected {
            guard let command = record.commandID, let id = SubmissionID(commandID: command), let nonce = record.submission,
                  lastNonce[id.device] != nonce else { continue }
            if let expected = follows[nonce], let previous = lastNonce[id.device] {
                try #require(expected == previous, "\(command) was decided after another copy's submission \(id.number - 1)")
            }
            lastNonce[id.device] = nonce
        }
        // (2) no command id has two outcomes; (4) each device's outcomes in n order.
        var outcomes: [String: Int64] = [:]
        var lastNumber: [DeviceID: Int64] = [:]
        var index = 0
        while index < records.count {
            let first = records[index]
            let end = index + first.batchRemainder + 1
            if let command = first.commandID {
                try #require(outcomes[command] == nil, "\(command) has two outcomes (positions \(outcomes[command]!) and \(first.position))")
                outcomes[command] = first.position
                if let id = SubmissionID(commandID: command) {
                    try #require(id.number == (lastNumber[id.device] ?? 0) + 1, "\(command) decided out of order")
                    lastNumber[id.device] = id.number
                }
            }
            index = end
        }
        let sharedBytes = try shared.linesForMirror(after: 0).bytes
        for (k, device) in devices.enumerated() {
            // A replica that found another copy of itself pushed nothing since, and lost nothing.
            if let stop = device.stoppedAt {
                let id = device.storage.files.withLock { $0.queue.device }
                if folder != nil {
                    // Through a folder, segments written before the stop (by this copy or the
                    // other) may still be decided: it writes none after it.
                    let after = ledger.writes.withLock { Array($0[stop.writes...]) }
                    let pushed = after.filter { $0.writer == id.rawValue && $0.path.hasPrefix(FolderLayout.deviceDirectory(id)) }
                    try #require(pushed.isEmpty, "device \(k) wrote \(pushed.map(\.path)) after it stopped")
                } else {
                    for record in records where record.position > stop.position {
                        if let command = record.commandID, let sub = SubmissionID(commandID: command) {
                            try #require(sub.device != id, "device \(k) pushed \(command) after it stopped")
                        }
                    }
                }
                // Nothing lost: each submission pending at the stop is pending still, or was
                // decided with its nonce (through a folder, from a segment written before).
                let pending = Set(device.storage.files.withLock { $0.pending.map(\.id) })
                for (id, nonce) in stop.pending where !pending.contains(id) {
                    try #require(folder != nil && records.contains { $0.commandID == id.description && $0.submission == nonce },
                                 "device \(k) lost \(id) after it stopped")
                }
            }
            // (5) what a send is checked against (the state a replica keeps between sends)
            // is what it shows: its mirror with its pending submissions decided on top.
            if var replica = device.replica {
                let expected = shown(replica)
                let kept = replica.shownState()
                for id in Self.timelines {
                    try #require(kept.timeline(id) == expected.timeline(id), "device \(k) keeps timeline \(id) wrong")
                }
                for id in Self.events {
                    try #require(kept.event(id) == expected.event(id), "device \(k) keeps event \(id) wrong")
                }
            }
            // (3) each mirror is a byte-identical prefix of the shared log.
            let mirror = device.storage.files.withLock { $0.mirror }
            try #require(mirror.count <= sharedBytes.count && Array(sharedBytes[..<mirror.count]) == mirror,
                         "device \(k)'s mirror is not a prefix of the shared log")
        }
        // Folder mode: no file has two writers, and the service never had to make a conflicted copy.
        if let folder {
            try #require(ledger.shared.isEmpty, "files written by two devices: \(ledger.shared)")
            let rewritten = ledger.rewritten.withLock { $0 }
            try #require(rewritten.isEmpty, "sealed files written again with other contents: \(rewritten)")
            try #require(folder.conflicts.isEmpty, "conflicted copies made: \(folder.conflicts)")
        }
    }

    /// Properties (6) and (7), after healing; and that a replica restored from a backup
    /// lost nothing it acknowledged since, and that no submission was applied to an id
    /// made again after the submission was made.
    func checkHealed() throws {
        let records = sharedRecords
        for (k, device) in devices.enumerated() {
            let pending = Set(device.storage.files.withLock { $0.pending.map(\.id) })
            for (id, submission) in device.acknowledgedSinceRestore {
                let outcome = records.first { $0.commandID == id.description && $0.submission == submission.nonce }
                #expect(outcome != nil || (device.stopped && pending.contains(id)),
                        "device \(k) lost \(id): no outcome with its nonce, and not kept pending")
            }
        }
        let submissions = Dictionary(devices.flatMap { $0.acknowledged.map { ($0.key, $0.value) } },
                                     uniquingKeysWith: { first, _ in first })
        try checkOutcomes(records, submissions)
        var outcome: [String: Record] = [:]
        for record in records { if let c = record.commandID, outcome[c] == nil { outcome[c] = record } }
        let sharedBytes = try shared.linesForMirror(after: 0).bytes
        for (k, device) in devices.enumerated() where !device.stopped {
            let replica = device.replica ?? (try! ReplicaSync(storage: device.storage, sharedName: "shared"))
            for (command, submission) in device.acknowledged where !device.restored {
                let record = try #require(outcome[command], "device \(k)'s \(command) has no outcome")
                #expect(record.submission == submission.nonce)
                if case .commandRejected = record.facts[0] {
                    #expect(replica.queue.notices.contains { $0.id == submission.id }, "\(command): no notice")
                }
            }
            // (7) every mirror equals the shared log, nothing pending.
            #expect(device.storage.files.withLock { $0.mirror } == sharedBytes, "device \(k)'s mirror differs")
            #expect(replica.queue.pending.isEmpty, "device \(k) still has pending submissions")
            #expect(shown(replica) == replica.shared.domain)
        }
    }

    /// Each submission's outcome is the one sections 10 and 11 give, computed here apart
    /// from the shared log's own bookkeeping. An undo whose condition's ids a record touched
    /// after its position is refused with `changedSince` (so an accepted undo overwrote
    /// nothing). Otherwise, decided against what the device saw: one naming an id whose
    /// current life began after the position it was made at (unless its device made it) is
    /// refused as a stale reference. An undo whose ids nothing touched is never refused
    /// with `changedSince`. Touches: a record touches the event it names; a timeline's creation,
    /// renaming or removal touches the timeline, and a removal also every event in it then.
    /// An undo that removes a timeline is refused too when an event in it now was touched
    /// after its position (put there since: it would go with the timeline).
    /// A plain removal of a timeline is refused (`changedSince`) when an event in it now was
    /// put there (added or moved in) after its position by another device: it would go unseen.
    func checkOutcomes(_ records: [Record], _ submissions: [String: Submission]) throws {
        var state = DomainState()
        var touched: [String: Int64] = [:]
        var births: [String: (position: Int64, command: String?)] = [:]
        /// Where each event was put in its timeline now: its addition or its last move.
        var entries: [String: (position: Int64, command: String?)] = [:]
        var remaining = 0
        for record in records {
            // Checked at a batch's first record, against the state before the batch.
            let first = remaining == 0
            remaining = first ? record.batchRemainder : remaining - 1
            if first, let command = record.commandID, let submission = submissions[command],
               record.submission == submission.nonce {
                var rule: String?
                if case .commandRejected(_, let broken, _) = record.facts[0] { rule = broken }
                var made = Set<String>(), stale: String?
                for command in submission.commands {
                    let names = command.names
                    for name in names.timelines.map({ "timeline " + $0.rawValue }) + names.events.map({ "event " + $0.rawValue })
                    where !made.contains(name) {
                        guard let birth = births[name], birth.position > submission.basePosition else { continue }
                        let byItself = birth.command.flatMap(SubmissionID.init(commandID:)).map {
                            $0.device == submission.id.device && $0.number < submission.id.number
                        } ?? false
                        if !byItself, stale == nil { stale = "\(name), made again at \(birth.position) after \(submission.basePosition)" }
                    }
                    switch command {
                    case .createTimeline(let id, _): made.insert("timeline " + id.rawValue)
                    case .addEvent(let id, _, _, _): made.insert("event " + id.rawValue)
                    default: break
                    }
                }
                let named = (submission.condition?.events.map { "event " + $0.rawValue } ?? [])
                    + (submission.condition?.timelines.map { "timeline " + $0.rawValue } ?? [])
                let after = submission.condition?.after ?? .max
                if let change = named.first(where: { (touched[$0] ?? 0) > after })
                    ?? entered(submission.commands, state, touched, after) {
                    let why = "record \(touched[change]!) touched \(change) after \(after)"
                    #expect(rule == "changedSince", "\(command), an undo, should be refused: \(why); its outcome is \(rule ?? "accepted")")
                } else if let stale {
                    #expect(rule == "unknownEvent" || rule == "unknownTimeline",
                            "\(command) names \(stale), yet its outcome is \(rule ?? "accepted")")
                } else if submission.condition == nil, let unseen = enteredUnseen(submission, state, entries) {
                    #expect(rule == "changedSince",
                            "\(command) removes a timeline with \(unseen), yet its outcome is \(rule ?? "accepted")")
                } else {
                    #expect(rule != "changedSince", "\(command) was refused as an undo though nothing touched what it names")
                }
            }
            for fact in record.facts {
                var ids: [String] = []
                if let event = fact.event { ids.append("event " + event.rawValue) }
                if let timeline = fact.touchedTimeline { ids.append("timeline " + timeline.rawValue) }
                if case .timelineRemoved(let timeline) = fact {
                    ids += state.eventIDs(in: timeline).map { "event " + $0.rawValue }
                }
                for id in ids { touched[id] = record.position }
                switch fact {
                case .timelineCreated(let id, _): births["timeline " + id.rawValue] = (record.position, record.commandID)
                case .eventAdded(let id, _, _, _):
                    births["event " + id.rawValue] = (record.position, record.commandID)
                    entries["event " + id.rawValue] = (record.position, record.commandID)
                case .eventMoved(let id, _): entries["event " + id.rawValue] = (record.position, record.commandID)
                default: break
                }
                state.apply(fact)
            }
        }
    }

    /// An event in a timeline that a plain submission removes, put there (added or moved
    /// in) after the submission was made by anything but the device's earlier submissions:
    /// the removal is refused (`changedSince`) rather than removing it unseen.
    func enteredUnseen(_ submission: Submission, _ state: DomainState,
                       _ entries: [String: (position: Int64, command: String?)]) -> String? {
        for command in submission.commands {
            guard case .removeTimeline(let timeline) = command else { continue }
            for event in state.eventIDs(in: timeline) {
                guard let entry = entries["event " + event.rawValue], entry.position > submission.basePosition else { continue }
                let own = entry.command.flatMap(SubmissionID.init(commandID:)).map {
                    $0.device == submission.id.device && $0.number < submission.id.number
                } ?? false
                if !own { return "event \(event.rawValue), put there at \(entry.position) after \(submission.basePosition)" }
            }
        }
        return nil
    }

    /// An event, in a timeline that `commands` remove, touched after `after`.
    func entered(_ commands: [Command], _ state: DomainState, _ touched: [String: Int64], _ after: Int64) -> String? {
        for command in commands {
            guard case .removeTimeline(let timeline) = command else { continue }
            for event in state.eventIDs(in: timeline) where (touched["event " + event.rawValue] ?? 0) > after {
                return "event " + event.rawValue
            }
        }
        return nil
    }

    /// One run of seed `seed`: 2–5 replicas (drawn with the seed and `salt`), `steps` steps
    /// with properties (1)–(5) checked after each, then healing and (6)–(7).
    static func run(seed: UInt64, salt: UInt64, steps: Int, throughFolder: Bool) throws -> SyncSimulation {
        var rng = SplitMix64(seed: seed ^ salt)
        var simulation = SyncSimulation(seed: seed, replicas: Int.random(in: 2...5, using: &rng), throughFolder: throughFolder)
        for _ in 0..<steps {
            simulation.step()
            try simulation.checkAlways()
        }
        simulation.heal()
        try simulation.checkAlways()
        try simulation.checkHealed()
        return simulation
    }

    /// A digest of the run, for determinism (8).
    var digest: [UInt8] { try! shared.linesForMirror(after: 0).bytes }
}
