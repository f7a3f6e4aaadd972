// timeline-stress: appends commands to a store on a file log until it is killed.
//
// Usage: timeline-stress LOG SEED [CHECKPOINT-INTERVAL] [LIMIT] [shared]
//
// Opens `TimelineStore(path: LOG)`, then sends single commands and batches of several
// commands, chosen deterministically from SEED and the store's state. After every
// acknowledged send it prints the last acknowledged position on a line of its own and
// writes it to standard output unbuffered, so that whoever kills it knows what must have survived. With
// CHECKPOINT-INTERVAL the store saves a checkpoint every that many records. It stops by
// itself after LIMIT sends (default: never; 0 is never too).
//
// With `shared`, other writers may append to the log between this process's look at the
// state and its send: ids start with `sSEED-`, every send carries the command id
// `sSEED-cN`, a send the store refuses (the state moved under it) is skipped, and each
// acknowledged line reads `POSITION COMMAND-ID`.
import SystemShim
import TimelineKit
import TimelineTestSupport

/// Writes `text` to a file descriptor with one unbuffered write, so that it is out of the
/// process the moment this returns, even if the process is killed right after.
func emit(_ text: String, to descriptor: Int32) {
    let bytes = Array(text.utf8)
    var written = 0
    while written < bytes.count {
        let result = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if result < 0 {
            if errno == EINTR { continue }
            exit(3)
        }
        written += result
    }
}

func fail(_ message: String) -> Never {
    emit("timeline-stress: \(message)\n", to: STDERR_FILENO)
    exit(2)
}

func date(_ text: String) -> DateValue {
    do { return try DateValue(parsing: text) } catch { fail("bad date \(text): \(error)") }
}

/// A date from the year 1950 to 2030, at a random precision; `after` makes it no earlier.
func randomDate(_ random: inout SplitMix64, after floor: DateValue? = nil) -> DateValue {
    let startYear = floor.map { Int($0.text.prefix(4)) ?? 1950 } ?? 1950
    let year = min(startYear + 1 + random.below(20), 2099)
    switch random.below(3) {
    case 0: return date("\(year)")
    case 1: return date("\(year)-\(String(format2: 1 + random.below(12)))")
    default: return date("\(year)-\(String(format2: 1 + random.below(12)))-\(String(format2: 1 + random.below(28)))")
    }
}

extension String {
    init(format2 value: Int) { self = value < 10 ? "0\(value)" : "\(value)" }
}

/// One command that the domain rules accept in `state`, or `nil` if the pick does not fit.
func pickCommand(_ random: inout SplitMix64, state: DomainState, newID: () -> String) -> Command? {
    let timelines = state.timelines.keys.sorted { $0.rawValue < $1.rawValue }
    let events = state.events.keys.sorted { $0.rawValue < $1.rawValue }
    let roll = random.below(100)
    if timelines.count < 2 || roll < 4 {
        return .createTimeline(TimelineID("t" + newID()), name: "Timeline \(random.below(1000))")
    }
    let timeline = timelines[random.below(timelines.count)]
    if events.isEmpty || roll < 40 {
        let id = EventID("e" + newID())
        let title = "Event \(random.below(100_000)) ✓"
        if random.below(3) == 0 {
            let start = randomDate(&random)
            let end: DateValue? = random.below(2) == 0 ? nil : randomDate(&random, after: start)
            return .addEvent(id, timeline: timeline, title: title, dates: .range(start: start, end: end))
        }
        return .addEvent(id, timeline: timeline, title: title, dates: .single(randomDate(&random)))
    }
    let eventID = events[random.below(events.count)]
    guard let event = state.events[eventID] else { return nil }
    switch roll {
    case 40..<55: return .retitleEvent(eventID, title: "Retitled \(random.below(100_000))")
    case 55..<63: return .setDate(eventID, randomDate(&random))
    case 63..<71:
        let start = randomDate(&random)
        return .setRange(eventID, start: start, end: random.below(2) == 0 ? nil : randomDate(&random, after: start))
    case 71..<79:
        guard event.dates.isOpenRange else { return nil }
        return .closeRange(eventID, end: randomDate(&random, after: event.dates.start))
    case 79..<85:
        guard event.dates.isClosedRange else { return nil }
        return .reopenRange(eventID)
    case 85..<91: return .moveEvent(eventID, to: timeline)
    case 91..<96: return .removeEvent(eventID)
    case 96..<98: return .renameTimeline(timeline, name: "Renamed \(random.below(1000))")
    default:
        guard timelines.count > 3 else { return nil }
        return .removeTimeline(timeline)
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 3, let seed = UInt64(arguments[2]) else {
    fail("usage: timeline-stress LOG SEED [CHECKPOINT-INTERVAL] [LIMIT] [shared]")
}
let path = arguments[1]
let interval = arguments.count > 3 ? Int64(arguments[3]).flatMap { $0 > 0 ? $0 : nil } : nil
let limit = arguments.count > 4 ? Int(arguments[4]).flatMap { $0 > 0 ? $0 : nil } : nil
let shared = arguments.count > 5 && arguments[5] == "shared"
let idPrefix = shared ? "s\(seed)-" : ""

let store: TimelineStore
do { store = try TimelineStore(path: path, checkpointInterval: interval) } catch { fail("\(error)") }

var random = SplitMix64(seed: seed)
var sent = 0
var counter = 0
while limit.map({ sent < $0 }) ?? true {
    var state = await store.domainState
    let base = await store.position
    let size = random.below(4) == 0 ? 2 + random.below(5) : 1
    var batch: [Command] = []
    var attempts = 0
    while batch.count < size, attempts < 20 {
        attempts += 1
        let command = pickCommand(&random, state: state) {
            counter += 1
            return "\(idPrefix)\(base + 1)-\(counter)"
        }
        guard let command else { continue }
        // Check the command against the state after the batch so far, as the store will.
        guard let facts = try? Decider.decide([command], state) else { continue }
        for fact in facts { state.apply(fact) }
        batch.append(command)
    }
    guard !batch.isEmpty else { continue }
    let commandID = shared ? "\(idPrefix)c\(sent)" : nil
    do {
        let records = try await store.send(batch, commandID: commandID)
        if let last = records.last {
            emit(commandID.map { "\(last.position) \($0)\n" } ?? "\(last.position)\n", to: STDOUT_FILENO)
        }
    } catch {
        guard shared, case .rejected = error else { fail("send refused: \(error)") }
    }
    sent += 1
}
do { try await store.close() } catch { fail("\(error)") }
