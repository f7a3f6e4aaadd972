/// The pure heart of the domain: commands become facts, facts change state.
///
/// `decide` validates a command against the current state and returns the facts to
/// record, or a ``Rejection``; `evolve` applies a fact. Replaying a log applies the same
/// rules through ``check(_:in:)``: a fact the decider would refuse makes the log invalid.
package enum Decider {
    /// Returns the facts that `command` records in `state`, or why it is refused.
    ///
    /// Titles and names are trimmed of whitespace at both ends before they are recorded.
    /// A command that changes nothing (moving an event to its own timeline, renaming to
    /// the same name) is accepted and still records its fact.
    /// - Complexity: O(*k*) for a command of *k* facts; the state is not copied.
    package static func decide(_ command: Command, _ state: some DomainLookup) throws(Rejection) -> [Fact] {
        try decide(proposed: proposedFacts(for: command), state)
    }

    /// The facts of one command, `proposed` by ``proposedFacts(for:)``, checked against `state`.
    ///
    /// Inlined, so that the unspecialised `decide(_:_:)` makes no call of its own for it.
    @inline(__always)
    static func decide(proposed: [Fact], _ state: some DomainLookup) throws(Rejection) -> [Fact] {
        if proposed.count == 1 {
            // One fact (most commands): checked against the state itself, no overlay.
            // Called from another module, this function runs unspecialised, and the
            // generic batch path would make a witness call at each step.
            try check(proposed[0], lookup: state)
            return proposed
        }
        if proposed.count == 2, case .rangeSet(let id, let start, let end) = proposed[1],
           case .eventAdded(id, _, _, _) = proposed[0] {
            // An event added with a range: the range's fact needs only its own rule, as the
            // fact before it makes the event, so no overlay (whose generic type would be
            // instantiated at run time here) is made.
            try check(proposed[0], lookup: state)
            try checkOrder(event: id, start: start, end: end)
            return proposed
        }
        var pending = PendingState(base: state)
        var facts: [Fact] = []
        try overlay(proposed, on: &pending, into: &facts)
        return facts
    }

    /// Returns the facts that a batch of commands records, each command decided in the
    /// state after the ones before it, or the first rejection.
    /// - Complexity: O(*k*) for *k* facts; the state is not copied.
    package static func decide<C: Collection>(_ commands: C, _ state: some DomainLookup) throws(Rejection) -> [Fact]
    where C.Element == Command {
        if commands.count == 1, let command = commands.first { return try decide(command, state) }
        return try decide(overlaying: commands, state)
    }

    /// Returns the facts that an array of commands records, each command decided in the
    /// state after the ones before it, or the first rejection (as for any collection).
    ///
    /// The store sends arrays; this overload reads one without the generic collection's
    /// witness calls, as the function runs unspecialised from another module.
    /// - Complexity: O(*k*) for *k* facts; the state is not copied.
    package static func decide(_ commands: [Command], _ state: some DomainLookup) throws(Rejection) -> [Fact] {
        if commands.count == 1 { return try decide(commands[0], state) }
        return try decide(overlaying: commands, state)
    }

    /// The facts of `commands`, each checked against `state` as the facts before it change it.
    private static func decide<C: Collection>(overlaying commands: C, _ state: some DomainLookup)
        throws(Rejection) -> [Fact] where C.Element == Command {
        var pending = PendingState(base: state)
        var facts: [Fact] = []
        for command in commands { try overlay(proposedFacts(for: command), on: &pending, into: &facts) }
        return facts
    }

    /// Checks each of `proposed` against `pending` as the ones before it change it, and
    /// appends it to `facts`.
    private static func overlay<Base>(_ proposed: [Fact], on pending: inout PendingState<Base>,
                                      into facts: inout [Fact]) throws(Rejection) {
        for fact in proposed {
            try check(fact, lookup: pending)
            pending.apply(fact)
            facts.append(fact)
        }
    }

    /// Returns the state after `fact`: the pure form of ``DomainState/apply(_:)``.
    ///
    /// - Complexity: O(1) when `state` is passed on (consumed); a caller that keeps using
    ///   its own copy pays for copying it. Hot paths call `apply` on a state they own.
    package static func evolve(_ state: consuming DomainState, _ fact: Fact) -> DomainState {
        var state = state
        state.apply(fact)
        return state
    }

    /// Checks that `fact` follows the domain rules in `state`; throws the rule it breaks.
    ///
    /// - Complexity: O(*t*) for the length *t* of a title or name, otherwise O(1).
    package static func check(_ fact: Fact, in state: some DomainLookup) throws(Rejection) {
        try check(fact, lookup: state)
    }

    /// Checks facts in order, each in the state after the ones before it; throws the first
    /// refused fact's index and the rule it breaks.
    ///
    /// A fact may depend on earlier facts of the same sequence (an event added to a timeline
    /// created just before it). An empty sequence is accepted. `state` is not copied and not
    /// changed: the facts are tried on an overlay, as a batch of commands is when it is decided.
    /// - Complexity: O(*k*) for *k* facts (plus the length of their titles and names).
    package static func check<S: Sequence>(_ facts: S, in state: some DomainLookup) throws(FactRefusal)
    where S.Element == Fact {
        var pending = PendingState(base: state)
        for (index, fact) in facts.enumerated() {
            do { try check(fact, lookup: pending) } catch {
                throw FactRefusal(index: index, fact: fact, rejection: error)
            }
            pending.apply(fact)
        }
    }

    /// The rules of every fact, for commands and for facts read from a log alike.
    ///
    /// The rules of ids are checked where an id is made (a timeline created, an event
    /// added); an id that exists passed them, and one that does not is reported by the
    /// rule it breaks before it is reported unknown.
    static func check(_ fact: Fact, lookup state: some DomainLookup) throws(Rejection) {
        switch fact {
        case .timelineCreated(let id, let name):
            try checkID(id)
            guard state.timeline(id) == nil else { throw .timelineExists(id) }
            try checkText(name, field: "timeline name")
        case .timelineRenamed(let id, let name):
            guard state.timeline(id) != nil else { throw unknown(id) }
            try checkText(name, field: "timeline name")
        case .timelineRemoved(let id):
            guard state.timeline(id) != nil else { throw unknown(id) }
        case .eventAdded(let id, let timeline, let title, _):
            try checkID(id)
            guard state.eventTimeline(id) == nil else { throw .eventExists(id) }
            guard state.timeline(timeline) != nil else { throw unknown(timeline) }
            try checkText(title, field: "title")
        case .eventRetitled(let id, let title):
            guard state.eventTimeline(id) != nil else { throw unknown(id) }
            try checkText(title, field: "title")
        case .dateSet(let id, _):
            guard state.eventTimeline(id) != nil else { throw unknown(id) }
        case .rangeSet(let id, let start, let end):
            guard state.eventTimeline(id) != nil else { throw unknown(id) }
            try checkOrder(event: id, start: start, end: end)
        case .rangeClosed(let id, let end):
            guard let dates = state.eventDates(id) else { throw unknown(id) }
            guard case .range(let start, nil) = dates else { throw .notOpenRange(id) }
            try checkOrder(event: id, start: start, end: end)
        case .rangeReopened(let id):
            guard let dates = state.eventDates(id) else { throw unknown(id) }
            guard dates.isClosedRange else { throw .notClosedRange(id) }
        case .eventMoved(let id, let timeline):
            guard state.eventTimeline(id) != nil else { throw unknown(id) }
            guard state.timeline(timeline) != nil else { throw unknown(timeline) }
        case .eventRemoved(let id):
            guard state.eventTimeline(id) != nil else { throw unknown(id) }
        case .commandRejected:
            // An outcome, not a change: it holds in every state. That a command id has at
            // most one outcome is the shared log's rule (``SharedLogState``).
            break
        }
    }

    /// Checks the rules of ids for a timeline id about to be made.
    @inline(__always)
    static func checkID(_ id: TimelineID) throws(Rejection) {
        if let problem = IdentifierText.problem(in: id.rawValue) {
            throw .invalidID(field: "timeline", value: id.rawValue, problem: problem)
        }
    }

    /// Checks the rules of ids for an event id about to be made.
    @inline(__always)
    static func checkID(_ id: EventID) throws(Rejection) {
        if let problem = IdentifierText.problem(in: id.rawValue) {
            throw .invalidID(field: "event", value: id.rawValue, problem: problem)
        }
    }

    /// Why no timeline has `id`: the rule of ids it breaks, or that it is unknown.
    static func unknown(_ id: TimelineID) -> Rejection {
        IdentifierText.problem(in: id.rawValue).map { .invalidID(field: "timeline", value: id.rawValue, problem: $0) }
            ?? .unknownTimeline(id)
    }

    /// Why no event has `id`: the rule of ids it breaks, or that it is unknown.
    static func unknown(_ id: EventID) -> Rejection {
        IdentifierText.problem(in: id.rawValue).map { .invalidID(field: "event", value: id.rawValue, problem: $0) }
            ?? .unknownEvent(id)
    }

    /// Checks that a range of `event` does not end before it starts.
    static func checkOrder(event: EventID, start: DateValue, end: DateValue?) throws(Rejection) {
        if let end, end.instant < start.instant { throw .endBeforeStart(event: event, start: start, end: end) }
    }

    /// The facts a command asks for, before any rule is checked.
    static func proposedFacts(for command: Command) -> [Fact] {
        switch command {
        case .createTimeline(let id, let name):
            return [.timelineCreated(timeline: id, name: trimmed(name))]
        case .renameTimeline(let id, let name):
            return [.timelineRenamed(timeline: id, name: trimmed(name))]
        case .removeTimeline(let id):
            return [.timelineRemoved(timeline: id)]
        case .addEvent(let id, let timeline, let title, let dates):
            let added = Fact.eventAdded(event: id, timeline: timeline, title: trimmed(title), date: dates.start)
            guard case .range(let start, let end) = dates else { return [added] }
            return [added, .rangeSet(event: id, start: start, end: end)]
        case .retitleEvent(let id, let title):
            return [.eventRetitled(event: id, title: trimmed(title))]
        case .setDate(let id, let date):
            return [.dateSet(event: id, date: date)]
        case .setRange(let id, let start, let end):
            return [.rangeSet(event: id, start: start, end: end)]
        case .closeRange(let id, let end):
            return [.rangeClosed(event: id, end: end)]
        case .reopenRange(let id):
            return [.rangeReopened(event: id)]
        case .moveEvent(let id, let timeline):
            return [.eventMoved(event: id, timeline: timeline)]
        case .removeEvent(let id):
            return [.eventRemoved(event: id)]
        }
    }

    /// Checks a name or title: 1–1000 characters once whitespace at both ends is trimmed.
    static func checkText(_ text: String, field: String) throws(Rejection) {
        if isTrimmedAndShort(text) { return }
        let count = trimmedCount(text)
        if count == 0 { throw .emptyText(field: field) }
        if count > Rejection.maximumTextLength { throw .textTooLong(field: field, length: count) }
    }

    /// The text without whitespace (spaces, tabs, newlines) at either end.
    static func trimmed(_ text: String) -> String {
        if isTrimmedAndShort(text) { return text }
        if let bounds = asciiTrimmedBounds(text) {
            let utf8 = text.utf8
            guard bounds.start > 0 || bounds.end < utf8.count else { return text }
            let start = utf8.index(utf8.startIndex, offsetBy: bounds.start)
            return String(Substring(utf8[start..<utf8.index(start, offsetBy: bounds.end - bounds.start)]))
        }
        return String(trimmedSlice(text))
    }

    /// Whether the text has nothing to trim and 1–1000 characters, read from its first and
    /// last bytes and its length alone (O(1)): true for nearly every title and name, which
    /// the decider trims and then checks, so that it does not scan them twice.
    ///
    /// An ASCII byte other than whitespace at each end means the first and the last
    /// `Character` are not whitespace: a character is whitespace when its first scalar is,
    /// and no cluster that ends in an ASCII scalar begins with whitespace except `\r\n`.
    /// A character takes at least one byte, so 1,000 bytes are at most 1,000 characters.
    static func isTrimmedAndShort(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard utf8.count <= Rejection.maximumTextLength, let first = utf8.first, let last = utf8.last else { return false }
        return first < 0x80 && last < 0x80 && !isASCIISpace(first) && !isASCIISpace(last)
    }

    /// Whether an ASCII byte is whitespace as `Character.isWhitespace` has it: a space or
    /// U+0009–U+000D.
    private static func isASCIISpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }

    /// How many characters the text holds once trimmed.
    ///
    /// ASCII text (nearly every title) is measured in its bytes: walking `Character`s
    /// looks up Unicode properties for each one.
    static func trimmedCount(_ text: String) -> Int {
        asciiTrimmedBounds(text)?.characters ?? trimmedSlice(text).count
    }

    /// For ASCII text: where the trimmed text starts and ends, in bytes, and how many
    /// characters it holds (a `\r\n` pair is one character); `nil` for other text.
    static func asciiTrimmedBounds(_ text: String) -> (start: Int, end: Int, characters: Int)? {
        var text = text
        return text.withUTF8 { bytes -> (start: Int, end: Int, characters: Int)? in
            guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
            var start = 0, end = bytes.count
            while start < end, isASCIISpace(bytes[start]) { start += 1 }
            while end > start, isASCIISpace(bytes[end - 1]) { end -= 1 }
            var characters = end - start
            if start < end {
                for i in start..<(end - 1) where bytes[i] == 0x0D && bytes[i + 1] == 0x0A { characters -= 1 }
            }
            return (start, end, characters)
        }
    }

    /// The trimmed text, found by walking `Character`s (any text).
    static func trimmedSlice(_ text: String) -> Substring {
        var slice = Substring(text)
        while let first = slice.first, first.isWhitespace { slice.removeFirst() }
        while let last = slice.last, last.isWhitespace { slice.removeLast() }
        return slice
    }
}
