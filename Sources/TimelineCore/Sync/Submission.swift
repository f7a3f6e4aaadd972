/// One command or one atomic batch sent on a replica: pending until the shared log decides it.
public struct Submission: Hashable, Sendable {
    /// Its command id in the shared log, `D:n`.
    public var id: SubmissionID
    /// A random text kept with it and written into its outcome (`sub`), so that an outcome
    /// is known to be this submission's and no other's (a replica restored from a backup
    /// may number another submission `D:n` too).
    public var nonce: String
    /// The commands, decided in order as one atomic batch.
    public var commands: [Command]
    /// The shared log's position its replica had mirrored when it was made: it is decided
    /// against what the device saw (an id removed and re-added since is another entity).
    public var basePosition: Int64
    /// When it was made, on the device's clock.
    public var madeAt: DateValue?
    /// For an undo: the condition the shared log checks before it decides the commands.
    public var condition: UndoCondition?
    /// The app's own id for it (the tool's `--command-id`), so that sending it again on
    /// this replica queues nothing new; it never reaches the shared log.
    public var localID: String?

    /// Creates a submission.
    public init(id: SubmissionID, nonce: String, commands: [Command], basePosition: Int64, madeAt: DateValue? = nil,
                condition: UndoCondition? = nil, localID: String? = nil) {
        self.id = id
        self.nonce = nonce
        self.commands = commands
        self.basePosition = basePosition
        self.madeAt = madeAt
        self.condition = condition
        self.localID = localID
    }

    /// A new random nonce: 128 bits in lowercase hexadecimal.
    /// Two draws of 64 bits (the system's generator makes a system call for each draw).
    package static func makeNonce(using random: inout some RandomNumberGenerator) -> String {
        let digits = Array("0123456789abcdef".utf8)
        let halves = [random.next(), random.next()]
        return String(unsafeUninitializedCapacity: 32) { text in
            for index in 0..<32 {
                let half = halves[index / 16]
                text[index] = digits[Int(truncatingIfNeeded: half >> UInt64(60 - 4 * (index % 16))) & 15]
            }
            return 32
        }
    }
}

/// What an undo made on a replica carries (section 11): nothing touched these events and
/// timelines after position `after` of the shared log; else the shared log rejects it
/// (`changedSince`), never overwriting another device's work.
public struct UndoCondition: Hashable, Sendable {
    /// The position the device checked up to.
    public var after: Int64
    /// The events the undone batch touched.
    public var events: [EventID]
    /// The timelines the undone batch touched.
    public var timelines: [TimelineID]
    /// The first position of the undone batch, written with the undo's records (`undo`) so
    /// that every reader of the shared log knows the batch undone (a redo, undoing the last
    /// batches in turn); `nil` for a condition of another kind.
    public var undoes: Int64?

    /// Creates a condition.
    public init(after: Int64, events: [EventID], timelines: [TimelineID], undoes: Int64? = nil) {
        self.after = after
        self.events = events
        self.timelines = timelines
        self.undoes = undoes
    }
}

/// One of this device's submissions that the shared log rejected: what was sent, the rule
/// and its message, and where the rejection stands in the shared log.
public struct Notice: Hashable, Sendable {
    /// The submission's command id.
    public var id: SubmissionID
    /// The commands as sent.
    public var commands: [Command]
    /// The stable code of the rule broken (``Rejection/rule``, or `changedSince`).
    public var rule: String
    /// Why, for a person.
    public var message: String
    /// The position of the `commandRejected` record in the shared log.
    public var position: Int64

    /// Creates a notice.
    public init(id: SubmissionID, commands: [Command], rule: String, message: String, position: Int64) {
        self.id = id
        self.commands = commands
        self.rule = rule
        self.message = message
        self.position = position
    }
}

extension Command {
    /// The command that records `fact` again, or `nil` for a fact no command records (a
    /// rejection): how an import on a replica becomes one submission.
    package init?(recording fact: Fact) {
        switch fact {
        case .timelineCreated(let id, let name): self = .createTimeline(id, name: name)
        case .timelineRenamed(let id, let name): self = .renameTimeline(id, name: name)
        case .timelineRemoved(let id): self = .removeTimeline(id)
        case .eventAdded(let id, let timeline, let title, let date):
            self = .addEvent(id, timeline: timeline, title: title, dates: .single(date))
        case .eventRetitled(let id, let title): self = .retitleEvent(id, title: title)
        case .dateSet(let id, let date): self = .setDate(id, date)
        case .rangeSet(let id, let start, let end): self = .setRange(id, start: start, end: end)
        case .rangeClosed(let id, let end): self = .closeRange(id, end: end)
        case .rangeReopened(let id): self = .reopenRange(id)
        case .eventMoved(let id, let timeline): self = .moveEvent(id, to: timeline)
        case .eventRemoved(let id): self = .removeEvent(id)
        case .commandRejected: return nil
        }
    }
}
